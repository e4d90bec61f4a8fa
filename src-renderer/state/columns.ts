/**
 * The grid's columns: how each reads its text from a draft and writes text back (immutably,
 * with the value's new source), and which validation fields it shows. The one place that knows
 * how a cell maps onto the nested draft.
 */
import { artistRoles } from '../../src-main/core/model/tags-to-track.js';
import type {
  CustomerTag,
  DraftAlbum,
  DraftArtist,
  DraftTrack,
  Sourced,
  ValueSource,
} from '../../src-main/core/model/track.js';

/** Every column id, in the default order. */
export const columnIds = [
  'status',
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

/** One column id. */
export type ColumnId = (typeof columnIds)[number];

/** A grid column. */
export interface Column {
  id: ColumnId;
  label: string;
  /** Default width in px. */
  width: number;
  /** Whether the cell can be edited as text in the grid. */
  editable: boolean;
  /** Album-level: the same for every track of an album. */
  album?: boolean;
  /** Validation fields (Finding.field) shown on this column's cells. */
  fields: readonly string[];
  /** The cell's text. */
  get(draft: DraftTrack): string;
  /** The draft with the cell set to `text` ('' clears it); never mutates `draft`. */
  set?(draft: DraftTrack, text: string, source: ValueSource): DraftTrack;
  /** Where the cell's value came from, for the inspector. */
  source?(draft: DraftTrack): ValueSource | undefined;
}

type TrackTextKey = 'outerId' | 'title' | 'isrc' | 'lyrics';
/** The album's text fields (columns show some; the inspector edits them all). */
export type AlbumTextKey = Exclude<keyof DraftAlbum, 'references'>;

function sourced(text: string, source: ValueSource): Sourced<string> | undefined {
  return text.trim() === '' ? undefined : { value: text, source };
}

function withTrack(draft: DraftTrack, key: TrackTextKey, text: string, source: ValueSource) {
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

function trackText(key: TrackTextKey, id: ColumnId, label: string, width: number, field: string) {
  return {
    id,
    label,
    width,
    editable: true,
    fields: [field],
    get: (d: DraftTrack) => d[key]?.value ?? '',
    set: (d: DraftTrack, text: string, source: ValueSource) => withTrack(d, key, text, source),
    source: (d: DraftTrack) => d[key]?.source,
  } satisfies Column;
}

function albumText(key: AlbumTextKey, id: ColumnId, label: string, width: number, field?: string) {
  return {
    id,
    label,
    width,
    editable: true,
    album: key !== 'trackPosition' && key !== 'diskNumber',
    fields: field ? [field] : [],
    get: (d: DraftTrack) => d.album?.[key]?.value ?? '',
    set: (d: DraftTrack, text: string, source: ValueSource) => withAlbum(d, key, text, source),
    source: (d: DraftTrack) => d.album?.[key]?.source,
  } satisfies Column;
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

/** Every column, by id. */
export const columns: Record<ColumnId, Column> = {
  status: { id: 'status', label: 'Status', width: 74, editable: false, fields: [], get: () => '' },
  file: {
    id: 'file',
    label: 'File',
    width: 240,
    editable: false,
    fields: ['primary_media'],
    get: (d) => d.file,
    source: () => ({ kind: 'file-name' }),
  },
  outer_id: trackText('outerId', 'outer_id', 'outer_id', 150, 'outer_id'),
  title: trackText('title', 'title', 'Title', 200, 'title'),
  artists: {
    id: 'artists',
    label: 'Artists',
    width: 170,
    editable: true,
    fields: ['artists'],
    get: artistsText,
    set: setArtists,
    source: (d) => d.artists?.source,
  },
  album: albumText('title', 'album', 'Album', 170),
  upc: albumText('upc', 'upc', 'UPC', 130, 'album.upc'),
  isrc: trackText('isrc', 'isrc', 'ISRC', 130, 'isrc'),
  release_date: {
    id: 'release_date',
    label: 'Release date',
    width: 110,
    editable: true,
    fields: ['release_date', 'album.release_date'],
    get: (d) => d.releaseDate?.value ?? '',
    set: setReleaseDate,
    source: (d) => d.releaseDate?.source,
  },
  track: albumText('trackPosition', 'track', 'Track #', 70, 'album.track_position'),
  disk: albumText('diskNumber', 'disk', 'Disk #', 64, 'album.disk_number'),
  album_type: albumText('type', 'album_type', 'Album type', 110),
  customer_tags: {
    id: 'customer_tags',
    label: 'Customer tags',
    width: 190,
    editable: true,
    fields: [],
    get: customerTagsText,
    set: setCustomerTags,
    source: (d) => d.customerTags?.source,
  },
  lyrics: {
    id: 'lyrics',
    label: 'Lyrics',
    width: 70,
    editable: false,
    fields: [],
    get: (d) => (d.lyrics?.value.trim() ? 'Yes' : ''),
    source: (d) => d.lyrics?.source,
  },
};

/** Sets lyrics (edited in the inspector, not in a grid cell). */
export function setLyrics(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  return withTrack(draft, 'lyrics', text, source);
}

/** A short human name for where a value came from. */
export function describeSource(source: ValueSource | undefined): string {
  if (!source) return '';
  switch (source.kind) {
    case 'tag':
      return `tag ${source.tag}`;
    case 'file-name':
      return 'file name';
    case 'manual':
      return 'edited';
    case 'csv':
      return source.column ? `CSV column ${source.column}` : 'CSV';
    case 'derived':
      return `derived from ${source.from}`;
  }
}
