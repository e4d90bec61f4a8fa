/**
 * outer_id strategies: the caller's unique id of each track. `audio_only` uses the file name;
 * the default here prefers the ISRC when it is present, valid and unique in the delivery.
 */
import { fileStem } from './audio-formats.js';
import { toYyyymmdd } from './dates.js';
import { memoPerDraft } from './draft-memo.js';
import { normalizePosition } from './ingestion-body.js';
import { isValidIsrc, normalizeIsrc } from './isrc.js';
import { sharedSource } from './shared-sources.js';
import type { DraftTrack, Sourced } from './track.js';

/** Fields a tag or pattern strategy can use, as `{name}` in a pattern. */
export const outerIdFields = [
  'file_name',
  'isrc',
  'title',
  'upc',
  'catalog_number',
  'label',
  'track_position',
  'disk_number',
  'release_date',
] as const;

/** One of the fields above. */
export type OuterIdField = (typeof outerIdFields)[number];

/** How outer_ids are made for a delivery. */
export type OuterIdStrategy =
  | { kind: 'default' }
  | { kind: 'file-name' }
  | { kind: 'isrc' }
  | { kind: 'tag'; field: OuterIdField }
  | { kind: 'pattern'; pattern: string };

function fieldValue(draft: DraftTrack, field: OuterIdField): Sourced<string> | undefined {
  switch (field) {
    case 'file_name':
      return { value: fileStem(draft.file).normalize('NFC'), source: { kind: 'file-name' } };
    case 'isrc':
      return draft.isrc && { ...draft.isrc, value: normalizeIsrc(draft.isrc.value) };
    case 'title':
      return draft.title;
    case 'upc':
      return draft.album?.upc;
    case 'catalog_number':
      return draft.album?.catalogNumber;
    case 'label':
      return draft.album?.label;
    case 'track_position':
      return (
        draft.album?.trackPosition && {
          ...draft.album.trackPosition,
          value: normalizePosition(draft.album.trackPosition.value),
        }
      );
    case 'disk_number':
      return (
        draft.album?.diskNumber && {
          ...draft.album.diskNumber,
          value: normalizePosition(draft.album.diskNumber.value),
        }
      );
    case 'release_date': {
      const date = draft.releaseDate && toYyyymmdd(draft.releaseDate.value);
      return date ? { value: date, source: draft.releaseDate!.source } : undefined;
    }
  }
}

/** Fills `{field}` placeholders; undefined when any field is missing or the pattern is unknown. */
export function applyPattern(draft: DraftTrack, pattern: string): string | undefined {
  let missing = false;
  const value = pattern.replace(/\{([a-z_]+)\}/g, (_all, name: string) => {
    if (!(outerIdFields as readonly string[]).includes(name)) {
      missing = true;
      return '';
    }
    const v = fieldValue(draft, name as OuterIdField)?.value.trim();
    if (!v) missing = true;
    return v ?? '';
  });
  return missing || value.trim() === '' ? undefined : value.trim();
}

/** The outer_id one strategy gives one draft, ignoring the rest of the delivery. */
function outerIdFor(draft: DraftTrack, strategy: OuterIdStrategy): Sourced<string> | undefined {
  switch (strategy.kind) {
    case 'file-name':
      return fieldValue(draft, 'file_name');
    case 'isrc':
      return fieldValue(draft, 'isrc');
    case 'tag': {
      const v = fieldValue(draft, strategy.field);
      return v && v.value.trim() !== '' ? { ...v, value: v.value.trim() } : undefined;
    }
    case 'pattern': {
      const value = applyPattern(draft, strategy.pattern);
      return value === undefined
        ? undefined
        : { value, source: sharedSource({ kind: 'derived', from: strategy.pattern }) };
    }
    case 'default':
      return undefined;
  }
}

/**
 * Each draft's ISRC as `normalizeIsrc` writes it (null when it has none). Drafts are never
 * changed, and the app assigns the outer_ids of its whole library each time tags come in: at
 * 100,000 tracks, normalising every ISRC again was most of that work.
 */
const normalizedIsrcOf = memoPerDraft((draft) =>
  draft.isrc ? normalizeIsrc(draft.isrc.value) : null,
);

/**
 * Returns the drafts with outer_ids set by `strategy` (drafts with a manual outer_id keep it).
 * Default: the normalised ISRC when valid and unique among the drafts, else the file name.
 */
export function assignOuterIds(
  drafts: DraftTrack[],
  strategy: OuterIdStrategy = { kind: 'default' },
): DraftTrack[] {
  const isrcCounts = new Map<string, number>();
  if (strategy.kind === 'default') {
    for (const draft of drafts) {
      const isrc = normalizedIsrcOf(draft);
      if (isrc !== null) isrcCounts.set(isrc, (isrcCounts.get(isrc) ?? 0) + 1);
    }
  }
  return drafts.map((draft) => {
    if (draft.outerId?.source.kind === 'manual') return draft;
    let outerId: Sourced<string> | undefined;
    if (strategy.kind === 'default') {
      const isrc = normalizedIsrcOf(draft);
      if (isrc !== null && isValidIsrc(isrc) && isrcCounts.get(isrc) === 1) {
        // Given before and kept (the common case when tags come in): nothing to make.
        const kept = draft.outerId;
        if (kept?.value === isrc && kept.source === draft.isrc!.source) return draft;
        outerId = { ...draft.isrc!, value: isrc };
      } else outerId = fieldValue(draft, 'file_name');
    } else {
      outerId = outerIdFor(draft, strategy);
    }
    if (outerId?.value === '') outerId = undefined;
    // A draft whose outer_id stays as it is is handed back as it is (drafts are immutable, and
    // what is worked out once per draft, as its findings, stays worked out).
    if (sameOuterId(draft.outerId, outerId)) return draft;
    const next: DraftTrack = { ...draft };
    if (outerId) next.outerId = outerId;
    else delete next.outerId;
    return next;
  });
}

function sameOuterId(a: Sourced<string> | undefined, b: Sourced<string> | undefined): boolean {
  if (!a || !b) return a === b;
  return a.value === b.value && sameFields(a.source, b.source);
}

/** Whether two sources say the same: the same fields, each the same (all are plain values). */
function sameFields(a: object, b: object): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return keys.every((key) => x[key] === y[key]);
}
