/**
 * Changes only: what a delivery holds compared with what the catalog already has from this
 * workstation (the ledger). A track is new, has new audio (a different MD5: uploaded and sent
 * with its metadata), has new metadata only (same audio: sent with overwrite_audio_file=false,
 * nothing uploaded), or is unchanged (not sent). Folder modes compare file by file.
 */
import type { LedgerEntry } from '../ledger/catalog-ledger.js';
import { albumOf } from '../model/albums.js';
import type { Track } from '../model/track.js';
import { withFields } from '../objects.js';
import type { LocalFile, PlannedAudio, PlannedTrack } from './plan.js';

/** Where a track stands against the catalog. */
export type TrackState = 'new' | 'audio' | 'metadata' | 'unchanged';

/** One track (json) or file (folder modes) of a delivery against the catalog. */
export interface TrackChange {
  /** The file (relative path), when the track has one. */
  path?: string;
  outer_id: string;
  state: TrackState;
  /** Fields that differ from what was delivered (`title`, `albums[0].type`). */
  fields: string[];
  /** Fields delivered before that this delivery removes (removed in review). */
  removed: string[];
  /** What each removed field held, as delivered (short JSON). */
  was?: Record<string, string>;
  /** The delivery that last sent it, and when the service accepted it. */
  delivered?: { delivery: string; at: string };
  /** Its album's label (json), else its folder's. */
  album: string;
}

/** How the planned delivery differs from the catalog. */
export interface CatalogChanges {
  /** Every track or file of the delivery, in order, with where it stands. */
  list: TrackChange[];
  /** json: tracks to send with their audio; folder modes: files to deliver. */
  tracks: PlannedTrack[];
  files: LocalFile[];
  metadataOnly: Array<{ track: Track; audio: PlannedAudio }>;
  counts: { new: number; audio: number; metadata: number; unchanged: number };
  /** Tracks whose body keeps fields delivered before and absent now (by outer_id). */
  kept: Array<{ outer_id: string; path?: string; fields: string[]; delivery: string }>;
  /** The newest delivery behind the unchanged tracks (for "nothing changed since …"). */
  latest?: { delivery: string; at: string };
}

/** A planned file with its fingerprint (after `fingerprintPlan`). */
export type FingerprintedFile = LocalFile & { md5?: string };

/** A value with its object keys sorted, so two bodies compare by content. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * A re-delivered track's body: what was delivered before, with what the delivery gives now
 * over it. A field sent before and absent now is kept (the service would otherwise store the
 * entry without it) and named in `kept`; an album's fields merge the same way, album by album.
 */
export function overDelivered(
  previous: Partial<Track> | undefined,
  next: Track,
  /** Fields emptied on purpose (`clearedFields`): removed, not kept. */
  cleared: readonly string[] = [],
): { body: Track; kept: string[] } {
  if (!previous) return { body: next, kept: [] };
  const kept: string[] = [];
  const body: Record<string, unknown> = { ...next };
  const gone = new Set(cleared);
  for (const [field, value] of Object.entries(previous)) {
    if (field === 'primary_media' || field === 'outer_id' || gone.has(field)) continue;
    if (body[field] === undefined) {
      body[field] = value;
      kept.push(field);
    }
  }
  const before = previous.albums ?? [];
  if (next.albums && before.length === next.albums.length) {
    body.albums = next.albums.map((album, i) => {
      const merged: Record<string, unknown> = { ...album };
      for (const [field, value] of Object.entries(before[i]!)) {
        if (merged[field] === undefined && !gone.has(`albums[${i}].${field}`)) {
          merged[field] = value;
          kept.push(`albums[${i}].${field}`);
        }
      }
      return merged;
    });
  }
  return { body: body as unknown as Track, kept };
}

/** The metadata of a body, without where its audio was (the folder changes each delivery). */
function metadataOf(body: Partial<Track> | undefined): string {
  const rest: Record<string, unknown> = { ...body };
  delete rest.primary_media;
  return JSON.stringify(canonical(rest));
}

/**
 * The fields of a body that differ from what was delivered, and those delivered and gone:
 * top-level fields by name, the album's fields as `albums[0].type`.
 */
export function fieldDiff(
  before: Partial<Track>,
  after: Partial<Track>,
): { fields: string[]; removed: string[] } {
  const fields: string[] = [];
  const removed: string[] = [];
  const compare = (prefix: string, a: Record<string, unknown>, b: Record<string, unknown>) => {
    for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (field === 'primary_media' || field === 'outer_id') continue;
      const [x, y] = [a[field], b[field]];
      if (field === 'albums' && !prefix && Array.isArray(x) && Array.isArray(y)) {
        if (x.length === y.length) {
          x.forEach((album, i) => compare(`albums[${i}].`, album, y[i]));
          continue;
        }
      }
      if (JSON.stringify(canonical(x)) === JSON.stringify(canonical(y))) continue;
      fields.push(`${prefix}${field}`);
      if (y === undefined) removed.push(`${prefix}${field}`);
    }
  };
  compare('', before, after);
  return { fields, removed };
}

/** The diff with what each removed field held, as short JSON for the pre-flight. */
function withWas(
  body: Partial<Track>,
  diff: { fields: string[]; removed: string[] },
): { fields: string[]; removed: string[]; was?: Record<string, string> } {
  if (diff.removed.length === 0) return diff;
  const at = (field: string): unknown => {
    const album = /^albums\[(\d+)\]\.(.+)$/.exec(field);
    if (!album) return (body as Record<string, unknown>)[field];
    return (body.albums?.[Number(album[1])] as Record<string, unknown> | undefined)?.[album[2]!];
  };
  const short = (value: unknown) => {
    const text = JSON.stringify(value) ?? '';
    return text.length > 200 ? `${text.slice(0, 199)}…` : text;
  };
  return { ...diff, was: Object.fromEntries(diff.removed.map((f) => [f, short(at(f))])) };
}

/**
 * Splits a planned delivery by what the ledger says the catalog holds. `get` looks an outer_id
 * (or a folder call's file name) up in the ledger.
 */
export function catalogChanges(args: {
  mode: 'json' | 'audio_only' | 'audio_mapping';
  files: readonly FingerprintedFile[];
  tracks?: readonly PlannedTrack[];
  /** Folder modes: the name the service gives each file (its outer_id). */
  nameOf?: (file: LocalFile) => string;
  get: (outerId: string) => LedgerEntry | undefined;
  /** Send everything again (`--all`): unchanged tracks too, with their audio. */
  all?: boolean;
}): CatalogChanges {
  const counts = { new: 0, audio: 0, metadata: 0, unchanged: 0 };
  const list: TrackChange[] = [];
  let latest: CatalogChanges['latest'];
  const seen = (entry: LedgerEntry) => {
    if (!latest || entry.at > latest.at) latest = { delivery: entry.delivery, at: entry.at };
  };
  const note = (
    change: Omit<TrackChange, 'fields' | 'removed' | 'delivered'> &
      Partial<Pick<TrackChange, 'fields' | 'removed'>>,
    entry: LedgerEntry | undefined,
  ) => {
    counts[change.state]++;
    list.push({
      fields: [],
      removed: [],
      ...change,
      ...(entry ? { delivered: { delivery: entry.delivery, at: entry.at } } : {}),
    });
  };
  const fileOf = new Map(args.files.map((f) => [f.path.normalize('NFC'), f]));
  if (args.mode !== 'json') {
    const files = args.files.filter((file) => {
      const outerId = args.nameOf?.(file) ?? file.path;
      const entry = args.get(outerId);
      const state: TrackState = !entry ? 'new' : entry.md5 !== file.md5 ? 'audio' : 'unchanged';
      note(
        { path: file.path, outer_id: outerId, state, album: albumOf({ file: file.path }).label },
        entry,
      );
      if (state !== 'unchanged' || args.all) return true;
      seen(entry!);
      return false;
    });
    return {
      list,
      tracks: [],
      files,
      metadataOnly: [],
      counts,
      kept: [],
      ...(latest ? { latest } : {}),
    };
  }
  const tracks: PlannedTrack[] = [];
  const metadataOnly: CatalogChanges['metadataOnly'] = [];
  const kept: CatalogChanges['kept'] = [];
  for (const original of args.tracks ?? []) {
    // A track the catalog holds starts from what was delivered, with today's values over it.
    const entry = original.track?.outer_id ? args.get(original.track.outer_id) : undefined;
    const merged =
      original.track && entry
        ? overDelivered(entry.body, original.track as Track, original.cleared)
        : undefined;
    if (merged && merged.kept.length > 0 && entry) {
      kept.push({
        outer_id: entry.outer_id,
        ...(original.path ? { path: original.path } : {}),
        fields: merged.kept,
        delivery: entry.delivery,
      });
    }
    const planned = merged ? withFields(original, { track: merged.body }) : original;
    const album = original.album?.label ?? albumOf({ file: original.path ?? '' }).label;
    const base = {
      ...(planned.path ? { path: planned.path } : {}),
      outer_id: planned.track?.outer_id ?? '',
      album,
    };
    const file = planned.path ? fileOf.get(planned.path.normalize('NFC')) : undefined;
    if (!planned.track || !entry) {
      if (planned.track) note(withFields(base, { state: 'new' as const }), undefined);
      tracks.push(planned);
      continue;
    }
    const diff = entry.body
      ? withWas(entry.body, fieldDiff(entry.body, planned.track))
      : { fields: [], removed: [] };
    if (!file || entry.md5 === undefined || entry.md5 !== file.md5) {
      note(withFields(base, { state: 'audio' as const, ...diff }), entry);
      tracks.push(planned);
      continue;
    }
    const same = metadataOf(entry.body) === metadataOf(planned.track);
    note(
      withFields(base, { state: same ? ('unchanged' as const) : ('metadata' as const), ...diff }),
      entry,
    );
    if (args.all) {
      tracks.push(planned);
      continue;
    }
    if (same) {
      seen(entry);
      continue;
    }
    metadataOnly.push({
      track: withFields(planned.track as Track, { primary_media: entry.primary_media ?? '' }),
      audio: {
        path: file.path,
        localPath: file.localPath,
        size: file.size,
        mtimeMs: file.mtimeMs,
        md5: file.md5,
      },
    });
  }
  const sent = new Set(tracks.map((t) => t.path?.normalize('NFC')));
  const files = args.files.filter((f) => sent.has(f.path.normalize('NFC')));
  return { list, tracks, files, metadataOnly, counts, kept, ...(latest ? { latest } : {}) };
}

/** Where a track of the library stands for one delivery: against the catalog, or left out. */
export type TrackStanding = TrackState | 'excluded' | 'skipped';

/** What each standing is called, in the order the doors list them. */
export const standingLabels: ReadonlyArray<readonly [TrackStanding, string]> = [
  ['new', 'new'],
  ['audio', 'new audio'],
  ['metadata', 'changed metadata'],
  ['unchanged', 'unchanged (not sent)'],
  ['excluded', 'excluded'],
  ['skipped', 'skipped (errors)'],
];

/** Counts of where tracks stand, the zero ones left out: "2 new, 1 skipped (errors)". */
export function standingText(counts: Record<TrackStanding, number>): string {
  return standingLabels
    .filter(([key]) => counts[key] > 0)
    .map(([key, label]) => `${counts[key]} ${label}`)
    .join(', ');
}

/** A track left out of a delivery: excluded by the user, or skipped for its errors. */
export interface LeftOutTrack {
  path: string;
  outer_id: string;
  album: string;
  state: 'excluded' | 'skipped';
  /** Skipped: its first error. */
  reason?: string;
}

/** What the pre-flight repeats about a delivery against its catalog, in both doors. */
export interface CatalogSummary {
  counts: Record<TrackStanding, number>;
  /** The same counts album by album, in the order albums first appear. */
  albums: Array<{ album: string } & Record<TrackStanding, number>>;
  /** Every track with where it stands (the grid's catalog column). */
  tracks: Array<(TrackChange | LeftOutTrack) & { state: TrackStanding }>;
  /** Tracks delivered before from this folder that are no longer in it (never deleted). */
  gone: Array<{ outer_id: string; path?: string; delivery: string; at: string }>;
  /** Tracks whose re-delivery removes fields delivered before: sent only once confirmed. */
  removals: Array<{
    outer_id: string;
    path?: string;
    fields: string[];
    was: Record<string, string>;
  }>;
}

const noCounts = (): Record<TrackStanding, number> => ({
  new: 0,
  audio: 0,
  metadata: 0,
  unchanged: 0,
  excluded: 0,
  skipped: 0,
});

/**
 * The summary of a delivery against its catalog: the changes, the tracks left out, and the
 * ledger's entries from the same folder (`under`, an absolute path) that the delivery no longer
 * has — the interface has no delete, so they are only listed.
 */
export function catalogSummary(args: {
  changes: CatalogChanges;
  leftOut: readonly LeftOutTrack[];
  entries: Iterable<LedgerEntry>;
  under: string;
  /** Every local path and outer_id the user still has (sent, unchanged or left out). */
  present: { paths: ReadonlySet<string>; ids: ReadonlySet<string> };
}): CatalogSummary {
  const tracks = [...args.changes.list, ...args.leftOut];
  const counts = noCounts();
  const byAlbum = new Map<string, Record<TrackStanding, number>>();
  for (const track of tracks) {
    counts[track.state]++;
    let album = byAlbum.get(track.album);
    if (!album) byAlbum.set(track.album, (album = noCounts()));
    album[track.state]++;
  }
  const root = args.under.replaceAll('\\', '/').replace(/\/*$/, '/');
  const gone: CatalogSummary['gone'] = [];
  for (const entry of args.entries) {
    const local = entry.localPath?.replaceAll('\\', '/');
    if (!local?.startsWith(root) || args.present.paths.has(entry.localPath!)) continue;
    if (args.present.ids.has(entry.outer_id)) continue;
    gone.push({
      outer_id: entry.outer_id,
      ...(entry.path ? { path: entry.path } : {}),
      delivery: entry.delivery,
      at: entry.at,
    });
  }
  return {
    counts,
    albums: [...byAlbum].map(([album, c]) => ({ album, ...c })),
    tracks,
    gone,
    removals: args.changes.list
      .filter((t) => t.removed.length > 0 && t.state !== 'unchanged')
      .map((t) => ({
        outer_id: t.outer_id,
        ...(t.path ? { path: t.path } : {}),
        fields: t.removed,
        was: t.was ?? {},
      })),
  };
}
