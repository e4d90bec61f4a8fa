/**
 * Changes only: what a delivery holds compared with what the catalog already has from this
 * workstation (the ledger). A track is new, has new audio (a different MD5: uploaded and sent
 * with its metadata), has new metadata only (same audio: sent with overwrite_audio_file=false,
 * nothing uploaded), or is unchanged (not sent). Folder modes compare file by file.
 */
import type { LedgerEntry } from '../ledger/catalog-ledger.js';
import type { Track } from '../model/track.js';
import type { LocalFile, PlannedAudio, PlannedTrack } from './plan.js';

/** How the planned delivery differs from the catalog. */
export interface CatalogChanges {
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
): { body: Track; kept: string[] } {
  if (!previous) return { body: next, kept: [] };
  const kept: string[] = [];
  const body: Record<string, unknown> = { ...next };
  for (const [field, value] of Object.entries(previous)) {
    if (field === 'primary_media' || field === 'outer_id') continue;
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
        if (merged[field] === undefined) {
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
}): CatalogChanges {
  const counts = { new: 0, audio: 0, metadata: 0, unchanged: 0 };
  let latest: CatalogChanges['latest'];
  const seen = (entry: LedgerEntry) => {
    if (!latest || entry.at > latest.at) latest = { delivery: entry.delivery, at: entry.at };
  };
  const fileOf = new Map(args.files.map((f) => [f.path.normalize('NFC'), f]));
  if (args.mode !== 'json') {
    const files = args.files.filter((file) => {
      const entry = args.get(args.nameOf?.(file) ?? file.path);
      if (!entry) counts.new++;
      else if (entry.md5 !== file.md5) counts.audio++;
      else {
        counts.unchanged++;
        seen(entry);
        return false;
      }
      return true;
    });
    return { tracks: [], files, metadataOnly: [], counts, kept: [], ...(latest ? { latest } : {}) };
  }
  const tracks: PlannedTrack[] = [];
  const metadataOnly: CatalogChanges['metadataOnly'] = [];
  const kept: CatalogChanges['kept'] = [];
  for (const original of args.tracks ?? []) {
    // A track the catalog holds starts from what was delivered, with today's values over it.
    const before = original.track?.outer_id ? args.get(original.track.outer_id) : undefined;
    const merged =
      original.track && before ? overDelivered(before.body, original.track as Track) : undefined;
    if (merged && merged.kept.length > 0 && before) {
      kept.push({
        outer_id: before.outer_id,
        ...(original.path ? { path: original.path } : {}),
        fields: merged.kept,
        delivery: before.delivery,
      });
    }
    const planned = merged ? { ...original, track: merged.body } : original;
    const file = planned.path ? fileOf.get(planned.path.normalize('NFC')) : undefined;
    const entry = planned.track?.outer_id ? args.get(planned.track.outer_id) : undefined;
    if (!planned.track || !entry) {
      if (planned.track) counts.new++;
      tracks.push(planned);
      continue;
    }
    if (!file || entry.md5 === undefined || entry.md5 !== file.md5) {
      counts.audio++;
      tracks.push(planned);
      continue;
    }
    if (metadataOf(entry.body) === metadataOf(planned.track)) {
      counts.unchanged++;
      seen(entry);
      continue;
    }
    counts.metadata++;
    metadataOnly.push({
      track: { ...(planned.track as Track), primary_media: entry.primary_media ?? '' },
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
  return { tracks, files, metadataOnly, counts, kept, ...(latest ? { latest } : {}) };
}
