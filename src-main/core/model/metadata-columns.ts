/**
 * The metadata column vocabulary, shared by the grid (cells, CSV export and import) and
 * `courier deliver --metadata`: each column's id, the header names that mean it, and how its
 * cell text is read from a draft and written back (immutably, with the value's source).
 */
import { artistRoles } from './tags-to-track.js';
import type {
  CustomerTag,
  DraftAlbum,
  DraftArtist,
  DraftTrack,
  Sourced,
  ValueSource,
} from './track.js';

/** Every metadata column id, in the grid's default order (also the CSV export's header names). */
export const metadataColumnIds = [
  'file',
  'outer_id',
  'title',
  'artists',
  'album',
  'upc',
  'isrc',
  'release_date',
  'track',
  'disk',
  'album_type',
  'customer_tags',
  'lyrics',
] as const;

/** One metadata column id. */
export type MetadataColumnId = (typeof metadataColumnIds)[number];

/**
 * Header names that mean each column besides its id, compared without case, spaces or
 * punctuation. `path`, `artist`, `album_title` and `primary_media` are the CLI's older names.
 */
export const metadataColumnAliases: Record<MetadataColumnId, readonly string[]> = {
  file: ['path', 'relative path', 'file name', 'primary_media'],
  outer_id: ['id', 'track id'],
  title: ['track title', 'name'],
  artists: ['artist', 'track artist', 'main artist'],
  album: ['album_title', 'release'],
  upc: ['ean', 'barcode', 'gtin', 'upc/ean'],
  isrc: [],
  release_date: ['date', 'year'],
  track: ['track number', 'track no', 'track position', 'position'],
  disk: ['disc', 'disk number', 'disc number', 'disk no', 'disc no'],
  album_type: ['type', 'release type'],
  customer_tags: ['tags', 'genre', 'genres'],
  lyrics: [],
};

const squash = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

const byName = new Map<string, MetadataColumnId>();
for (const id of metadataColumnIds) {
  for (const name of [id, ...metadataColumnAliases[id]]) byName.set(squash(name), id);
}

/** The column a header names (its id or an alias, any case or punctuation), or undefined. */
export function columnForHeader(header: string): MetadataColumnId | undefined {
  return byName.get(squash(header));
}

/** The header names accepted, one per column, for messages. */
export function acceptedHeaders(): string {
  return metadataColumnIds.map((id) => [id, ...metadataColumnAliases[id]].join('/')).join(', ');
}

type TrackTextKey = 'outerId' | 'title' | 'isrc' | 'lyrics';
/** The album's text fields (columns show some; the inspector edits them all). */
export type AlbumTextKey = Exclude<keyof DraftAlbum, 'references'>;

function sourced(text: string, source: ValueSource): Sourced<string> | undefined {
  return text.trim() === '' ? undefined : { value: text, source };
}

/** The draft with one track text field set ('' removes it). */
export function withTrackText(
  draft: DraftTrack,
  key: TrackTextKey,
  text: string,
  source: ValueSource,
): DraftTrack {
  const next: DraftTrack = { ...draft };
  const value = sourced(text, source);
  if (value) next[key] = value;
  else delete next[key];
  return next;
}

/** The draft with one album text field set ('' removes it, and an album left empty). */
export function withAlbum(
  draft: DraftTrack,
  key: AlbumTextKey,
  text: string,
  source: ValueSource,
): DraftTrack {
  const album: DraftAlbum = { ...draft.album };
  const value = sourced(text, source);
  if (value) album[key] = value;
  else delete album[key];
  const next: DraftTrack = { ...draft };
  if (Object.keys(album).length > 0) next.album = album;
  else delete next.album;
  return next;
}

/** Artists as one cell: the main artists, "; " between them (other roles are kept). */
export function artistsText(draft: DraftTrack): string {
  return (draft.artists?.value ?? [])
    .filter((a) => a.role === artistRoles.main)
    .map((a) => a.name)
    .join('; ');
}

function setArtists(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  const others = (draft.artists?.value ?? []).filter((a) => a.role !== artistRoles.main);
  const main: DraftArtist[] = text
    .split(';')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      const known = draft.artists?.value.find(
        (a) => a.role === artistRoles.main && a.name === name,
      );
      return known ?? { name, role: artistRoles.main };
    });
  const value = [...main, ...others];
  const next: DraftTrack = { ...draft };
  if (value.length > 0) next.artists = { value, source };
  else delete next.artists;
  return next;
}

/** Customer tags as one cell: `Category: tag; Category: tag` (a bare tag is a Genre). */
export function customerTagsText(draft: DraftTrack): string {
  return (draft.customerTags?.value ?? []).map((t) => `${t.category}: ${t.tag}`).join('; ');
}

function setCustomerTags(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  const value: CustomerTag[] = text
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const colon = part.indexOf(':');
      return colon > 0
        ? { category: part.slice(0, colon).trim(), tag: part.slice(colon + 1).trim() }
        : { category: 'Genre', tag: part };
    })
    .filter((t) => t.tag !== '' && t.category !== '');
  const next: DraftTrack = { ...draft };
  if (value.length > 0) next.customerTags = { value, source };
  else delete next.customerTags;
  return next;
}

/** Sets the track's release date, and the album's too while it followed the track's. */
function setReleaseDate(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  const old = draft.releaseDate?.value;
  const next: DraftTrack = { ...draft };
  const value = sourced(text, source);
  if (value) next.releaseDate = value;
  else delete next.releaseDate;
  if (draft.album && (!draft.album.releaseDate || draft.album.releaseDate.value === old)) {
    const album: DraftAlbum = { ...draft.album };
    if (value) album.releaseDate = value;
    else delete album.releaseDate;
    next.album = album;
  }
  return next;
}

/** How one column reads its cell text from a draft and writes it back. */
export interface MetadataCell {
  /** The cell's full text (lyrics in full). */
  get(draft: DraftTrack): string;
  /** The draft with the cell set to `text` ('' clears it); never mutates `draft`. Absent: read-only. */
  set?(draft: DraftTrack, text: string, source: ValueSource): DraftTrack;
  /** Where the cell's value came from. */
  source(draft: DraftTrack): ValueSource | undefined;
}

function trackText(key: TrackTextKey): MetadataCell {
  return {
    get: (d) => d[key]?.value ?? '',
    set: (d, text, source) => withTrackText(d, key, text, source),
    source: (d) => d[key]?.source,
  };
}

function albumText(key: AlbumTextKey): MetadataCell {
  return {
    get: (d) => d.album?.[key]?.value ?? '',
    set: (d, text, source) => withAlbum(d, key, text, source),
    source: (d) => d.album?.[key]?.source,
  };
}

/** Every column's cell, by id. The file is the track's identity: read-only. */
export const metadataCells: Record<MetadataColumnId, MetadataCell> = {
  file: { get: (d) => d.file, source: () => ({ kind: 'file-name' }) },
  outer_id: trackText('outerId'),
  title: trackText('title'),
  artists: { get: artistsText, set: setArtists, source: (d) => d.artists?.source },
  album: albumText('title'),
  upc: albumText('upc'),
  isrc: trackText('isrc'),
  release_date: {
    get: (d) => d.releaseDate?.value ?? '',
    set: setReleaseDate,
    source: (d) => d.releaseDate?.source,
  },
  track: albumText('trackPosition'),
  disk: albumText('diskNumber'),
  album_type: albumText('type'),
  customer_tags: {
    get: customerTagsText,
    set: setCustomerTags,
    source: (d) => d.customerTags?.source,
  },
  lyrics: trackText('lyrics'),
};
