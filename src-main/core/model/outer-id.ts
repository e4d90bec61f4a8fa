/**
 * outer_id strategies: the caller's unique id of each track. `audio_only` uses the file name;
 * the default here prefers the ISRC when it is present, valid and unique in the delivery.
 */
import { fileStem } from './audio-formats.js';
import { toYyyymmdd } from './dates.js';
import { normalizePosition } from './ingestion-body.js';
import { isValidIsrc, normalizeIsrc } from './isrc.js';
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
        : { value, source: { kind: 'derived', from: strategy.pattern } };
    }
    case 'default':
      return undefined;
  }
}

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
      if (!draft.isrc) continue;
      const isrc = normalizeIsrc(draft.isrc.value);
      isrcCounts.set(isrc, (isrcCounts.get(isrc) ?? 0) + 1);
    }
  }
  return drafts.map((draft) => {
    if (draft.outerId?.source.kind === 'manual') return draft;
    let outerId: Sourced<string> | undefined;
    if (strategy.kind === 'default') {
      const isrc = fieldValue(draft, 'isrc');
      outerId =
        isrc && isValidIsrc(isrc.value) && isrcCounts.get(isrc.value) === 1
          ? isrc
          : fieldValue(draft, 'file_name');
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
  return a.value === b.value && JSON.stringify(a.source) === JSON.stringify(b.source);
}
