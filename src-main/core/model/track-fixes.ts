/**
 * One-click fixes of a track's metadata, the same from the app's bulk menu, a finding's button
 * and any other door: split the artist credits validation offers to split, use the ISRC as a
 * missing outer_id, write release dates as YYYY-MM-DD. Each returns the draft unchanged when it
 * does not apply, so a caller counts what would change by comparing.
 */
import { applyArtistSplits } from './artists.js';
import { normalizeDate } from './dates.js';
import { isValidIsrc, normalizeIsrc } from './isrc.js';
import type { ArtistSplitFix, DraftTrack, Finding, FindingFix, ValueSource } from './track.js';

/** The fixes of the bulk menu. */
export const trackFixKinds = ['split-artists', 'isrc-as-outer-id', 'normalize-dates'] as const;

/** One of the bulk menu's fixes. */
export type TrackFixKind = (typeof trackFixKinds)[number];

/** What each fix is called where the user picks it, and what it does. */
export const trackFixLabels: Record<TrackFixKind, { label: string; help: string }> = {
  'split-artists': {
    label: 'Split artists',
    help: 'Splits the artist credits that look like several artists, as each warning suggests',
  },
  'isrc-as-outer-id': {
    label: 'Use ISRC as outer_id',
    help: 'Gives tracks without an outer_id of their own (none, or the file name) their ISRC as id; an invalid ISRC, or one several tracks share, is left alone',
  },
  'normalize-dates': {
    label: 'Normalise dates',
    help: 'Writes release dates as YYYY-MM-DD (or YYYY-MM, YYYY when only that much is known)',
  },
};

const manual: ValueSource = { kind: 'manual' };

/** What the fixes read from the whole library. */
export interface TrackFixContext {
  /** Valid ISRCs that more than one track has (normalised): none of them becomes an outer_id. */
  sharedIsrcs: ReadonlySet<string>;
}

const noContext: TrackFixContext = { sharedIsrcs: new Set() };

/** A valid ISRC, normalised, or undefined. */
function validIsrc(draft: DraftTrack): string | undefined {
  const isrc = draft.isrc && normalizeIsrc(draft.isrc.value);
  return isrc && isValidIsrc(isrc) ? isrc : undefined;
}

/** The context of a library's drafts. */
export function trackFixContext(drafts: readonly DraftTrack[]): TrackFixContext {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const draft of drafts) {
    const isrc = validIsrc(draft);
    if (!isrc) continue;
    if (seen.has(isrc)) shared.add(isrc);
    seen.add(isrc);
  }
  return { sharedIsrcs: shared };
}

/**
 * The draft with its ISRC as outer_id, the user's choice from now on, when it has no outer_id
 * of its own (none, or the file name Courier fell back to) and a valid ISRC no other track has
 * (two tracks with one outer_id would overwrite each other at the service).
 */
export function isrcAsOuterId(draft: DraftTrack, context = noContext): DraftTrack {
  const current = draft.outerId;
  if (current && current.value.trim() !== '' && current.source.kind !== 'file-name') return draft;
  const isrc = validIsrc(draft);
  if (!isrc || context.sharedIsrcs.has(isrc) || current?.value === isrc) return draft;
  return { ...draft, outerId: { value: isrc, source: manual } };
}

/** The draft with its release dates (track and album) written as YYYY-MM-DD. */
export function normalizeDates(draft: DraftTrack): DraftTrack {
  let next = draft;
  const track = draft.releaseDate && normalizeDate(draft.releaseDate.value);
  if (track !== undefined && track !== draft.releaseDate!.value) {
    next = { ...next, releaseDate: { value: track, source: manual } };
  }
  const albumDate = draft.album?.releaseDate;
  const album = albumDate && normalizeDate(albumDate.value);
  if (album !== undefined && album !== albumDate!.value) {
    next = { ...next, album: { ...draft.album, releaseDate: { value: album, source: manual } } };
  }
  return next;
}

/** The artist splits among a track's findings. */
function splitsIn(findings: readonly Finding[]): ArtistSplitFix[] {
  return findings.flatMap((f) => (f.fix?.kind === 'split-artist' ? [f.fix] : []));
}

/**
 * The draft with one bulk fix applied; `findings` are the track's (validation offers the
 * artist splits, with what the whole library says about names), `context` the library's.
 */
export function applyTrackFix(
  kind: TrackFixKind,
  draft: DraftTrack,
  findings: readonly Finding[] = [],
  context = noContext,
): DraftTrack {
  switch (kind) {
    case 'split-artists': {
      const splits = splitsIn(findings);
      return splits.length > 0 ? applyArtistSplits(draft, splits) : draft;
    }
    case 'isrc-as-outer-id':
      return isrcAsOuterId(draft, context);
    case 'normalize-dates':
      return normalizeDates(draft);
  }
}

/** The draft with the fix one finding offers applied. */
export function applyFindingFix(draft: DraftTrack, fix: FindingFix): DraftTrack {
  switch (fix.kind) {
    case 'split-artist':
      return applyArtistSplits(draft, [fix]);
    case 'isrc-as-outer-id':
      return isrcAsOuterId(draft);
  }
}

/** What a finding's fix button says: its text and what it does, for the user. */
export function findingFixAction(fix: FindingFix): { text: string; label: string } {
  switch (fix.kind) {
    case 'split-artist':
      return { text: 'Split', label: `Split ${fix.name}` };
    case 'isrc-as-outer-id':
      return { text: 'Use ISRC', label: `Use the ISRC ${fix.isrc} as outer_id` };
  }
}
