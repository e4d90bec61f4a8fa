/**
 * Draft → the exact track object of `POST /ingestion/json` (service-interface 2.4): no extra
 * fields, absent rather than empty, references sorted by source and customer tags by category,
 * the track's release_date an integer YYYYMMDD and the album's a string.
 */
import { sentArtistId } from './artist-ids.js';
import { toYyyymmdd } from './dates.js';
import { normalizeGtin } from './gtin.js';
import { normalizeIsrc } from './isrc.js';
import type { Album, CustomerTag, DraftAlbum, DraftTrack, Reference, Track } from './track.js';

/** The reference source under which an album's catalog number is sent. */
export const catalogNumberSource = 'catalog_number';

/** The most tracks one `POST /ingestion/json` request may carry. */
export const maxTracksPerRequest = 25;

/** A track body whose required fields may still be missing (shown, never sent like that). */
export type TrackBody = Omit<Track, 'outer_id' | 'primary_media'> &
  Partial<Pick<Track, 'outer_id' | 'primary_media'>>;

function text(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const clean = value.normalize('NFC').trim();
  return clean === '' ? undefined : clean;
}

/** "03" → "3", "3/12" → "3"; other text is kept (validation reports it). */
export function normalizePosition(raw: string): string {
  const part = (raw.split('/')[0] ?? '').trim();
  return /^\d+$/.test(part) ? String(Number(part)) : part;
}

/**
 * A position on a vinyl or cassette side as Discogs and its taggers write it: the side's letter
 * and the track on it ("A1", "B12"), a side alone ("A") or a double A side ("AA1"). The service
 * takes a position as text, so these are sent as they are.
 */
export function isSidePosition(raw: string): boolean {
  return /^[A-Z]{1,2}\d{0,3}$/.test(normalizePosition(raw));
}

function sortBy<T>(items: T[], key: (item: T) => string): T[] {
  // Array.prototype.sort is stable: items keep their order within one source/category.
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function references(refs: Reference[] | undefined): Reference[] | undefined {
  const clean = (refs ?? [])
    .map((r) => ({ id: text(r.id), source: text(r.source) }))
    .filter((r): r is Reference => r.id !== undefined && r.source !== undefined);
  return clean.length > 0 ? sortBy(clean, (r) => r.source) : undefined;
}

function albumBody(draft: DraftAlbum | undefined): Album | undefined {
  if (!draft) return undefined;
  const album: Album = {};
  const upc = text(draft.upc?.value);
  if (upc) album.upc = normalizeGtin(upc);
  const title = text(draft.title?.value);
  if (title) album.title = title;
  const date = draft.releaseDate ? toYyyymmdd(draft.releaseDate.value) : null;
  if (date) album.release_date = date;
  const type = text(draft.type?.value);
  if (type) album.type = type;
  const catalog = text(draft.catalogNumber?.value);
  const refs = references([
    ...(draft.references?.value ?? []),
    ...(catalog ? [{ id: catalog, source: catalogNumberSource }] : []),
  ]);
  if (refs) album.references = refs;
  const position = text(draft.trackPosition?.value);
  if (position) album.track_position = normalizePosition(position);
  const disk = text(draft.diskNumber?.value);
  if (disk) album.disk_number = normalizePosition(disk);
  return Object.keys(album).length > 0 ? album : undefined;
}

/** The track object for one draft, exactly as it would be sent. */
export function draftToTrack(draft: DraftTrack): TrackBody {
  const track: TrackBody = {};
  const outerId = text(draft.outerId?.value);
  if (outerId) track.outer_id = outerId;
  const media = text(draft.primaryMedia?.value);
  if (media) track.primary_media = media;
  const refs = references(draft.references?.value);
  if (refs) track.references = refs;
  const title = text(draft.title?.value);
  if (title) track.title = title;
  // Lyrics keep their inner line breaks; only the NFC form and outer blanks change.
  const lyrics = text(draft.lyrics?.value);
  if (lyrics) track.lyrics = lyrics;
  const isrc = text(draft.isrc?.value);
  if (isrc) track.isrc = normalizeIsrc(isrc);
  const date = draft.releaseDate ? toYyyymmdd(draft.releaseDate.value) : null;
  if (date) track.release_date = Number(date);
  const album = albumBody(draft.album);
  if (album) track.albums = [album];
  const artists = (draft.artists?.value ?? [])
    .map((a) => ({ name: text(a.name), role: text(a.role), id: sentArtistId(a).id }))
    .filter((a) => a.name !== undefined && a.role !== undefined)
    .map((a) => ({ id: a.id, name: a.name!, role: a.role! }));
  if (artists.length > 0) track.artists = artists;
  const tags: CustomerTag[] = (draft.customerTags?.value ?? [])
    .map((t) => ({ tag: text(t.tag), category: text(t.category) }))
    .filter((t): t is CustomerTag => t.tag !== undefined && t.category !== undefined);
  if (tags.length > 0) track.customer_tags = sortBy(tags, (t) => t.category);
  return track;
}

/**
 * The body fields a person removed in review: given by the draft as read (`before`, its tags)
 * and absent from the draft as edited. A re-delivery keeps the fields delivered before unless
 * they are named here (`overDelivered`), and the pre-flight asks before it removes them.
 */
export function clearedFields(before: DraftTrack | null | undefined, after: DraftTrack): string[] {
  if (!before) return [];
  const [was, now] = [draftToTrack(before), draftToTrack(after)];
  const cleared: string[] = (Object.keys(was) as Array<keyof TrackBody>).filter(
    (field) => field !== 'albums' && now[field] === undefined,
  );
  const [wasAlbum, nowAlbum] = [was.albums?.[0] ?? {}, now.albums?.[0] ?? {}];
  for (const field of Object.keys(wasAlbum) as Array<keyof Album>) {
    if (nowAlbum[field] === undefined) cleared.push(`albums[0].${field}`);
  }
  return cleared;
}

/** Whether a body has both required fields. */
export function isSendable(body: TrackBody): body is Track {
  return body.outer_id !== undefined && body.primary_media !== undefined;
}

/**
 * The request bodies for `POST /ingestion/json`: at most 25 tracks each. Throws when a draft
 * lacks outer_id or primary_media (validation reports those as errors first).
 */
export function ingestionBodies(drafts: DraftTrack[]): Track[][] {
  const tracks = drafts.map((draft) => {
    const body = draftToTrack(draft);
    if (!isSendable(body)) {
      throw new Error(`${draft.file}: outer_id and primary_media are required before sending`);
    }
    return body;
  });
  const batches: Track[][] = [];
  for (let i = 0; i < tracks.length; i += maxTracksPerRequest) {
    batches.push(tracks.slice(i, i + maxTracksPerRequest));
  }
  return batches;
}
