/**
 * The metadata column vocabulary, the one set of columns of the grid, the CSV and .xlsx export
 * and import, and `courier deliver --metadata`: each column's id (the sheet's header), its label,
 * the header names that mean it, and how its cell text is read from a draft and written back
 * (immutably, with the value's source). The sheet carries every field of a draft, so an export
 * read back gives the same drafts; the grid shows the common ones as columns.
 */
import { featuredRole } from './artists.js';
import { artistRoles } from './tags-to-track.js';
import type {
  CustomerTag,
  DraftAlbum,
  DraftArtist,
  DraftTrack,
  Reference,
  Sourced,
  ValueSource,
} from './track.js';

/** Every column of a metadata sheet, in the export's order (the ids are its header names). */
export const sheetColumnIds = [
  'file',
  'outer_id',
  'title',
  'artists',
  'album_artist',
  'featured',
  'composer',
  'lyricist',
  'remixer',
  'other_artists',
  'artist_ids',
  'album',
  'upc',
  'catalog_number',
  'label',
  'isrc',
  'release_date',
  'album_release_date',
  'track',
  'disk',
  'album_type',
  'customer_tags',
  'references',
  'album_references',
  'lyrics',
] as const;

/** One metadata column id. */
export type MetadataColumnId = (typeof sheetColumnIds)[number];

/** The metadata columns the grid shows, in its default order (a subset of the sheet's). */
export const metadataColumnIds = [
  'file',
  'outer_id',
  'title',
  'artists',
  'artist_ids',
  'album',
  'upc',
  'isrc',
  'release_date',
  'track',
  'disk',
  'album_type',
  'customer_tags',
  'lyrics',
] as const satisfies readonly MetadataColumnId[];

/** Each column's name for people (the import's mapping, the preview). */
export const metadataColumnLabels: Record<MetadataColumnId, string> = {
  file: 'File',
  outer_id: 'outer_id',
  title: 'Title',
  artists: 'Artists',
  album_artist: 'Album artist',
  featured: 'Featured artists',
  composer: 'Composers',
  lyricist: 'Lyricists',
  remixer: 'Remixers',
  other_artists: 'Other artists (Role: name)',
  artist_ids: 'Artist ids (name = id)',
  album: 'Album',
  upc: 'UPC',
  catalog_number: 'Catalog number',
  label: 'Label',
  isrc: 'ISRC',
  release_date: 'Release date',
  album_release_date: 'Album release date',
  track: 'Track #',
  disk: 'Disk #',
  album_type: 'Album type',
  customer_tags: 'Customer tags',
  references: 'References (source: id)',
  album_references: 'Album references (source: id)',
  lyrics: 'Lyrics',
};

/**
 * Header names that mean each column besides its id, compared without case, spaces or
 * punctuation. `path`, `artist`, `album_title` and `primary_media` are the CLI's older names.
 */
export const metadataColumnAliases: Record<MetadataColumnId, readonly string[]> = {
  file: ['path', 'relative path', 'file name', 'primary_media'],
  outer_id: ['id', 'track id'],
  title: ['track title', 'name'],
  artists: ['artist', 'track artist', 'main artist'],
  album_artist: ['album artists', 'albumartist'],
  featured: ['featuring', 'featured artist', 'feat'],
  composer: ['composers', 'writer', 'songwriter'],
  lyricist: ['lyricists', 'lyrics by'],
  remixer: ['remixers', 'remixed by'],
  other_artists: ['contributors', 'credits'],
  artist_ids: ['artist id'],
  album: ['album_title', 'release'],
  upc: ['ean', 'barcode', 'gtin', 'upc/ean'],
  catalog_number: ['catalog no', 'catalogue number', 'catalogue no', 'cat no', 'catno'],
  label: ['record label', 'publisher', 'imprint'],
  isrc: [],
  release_date: ['date', 'year'],
  album_release_date: ['album date', 'original release date'],
  track: ['track number', 'track no', 'track position', 'position'],
  disk: ['disc', 'disk number', 'disc number', 'disk no', 'disc no'],
  album_type: ['type', 'release type'],
  customer_tags: ['tags', 'genre', 'genres'],
  references: ['track references'],
  album_references: [],
  lyrics: [],
};

const squash = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

const byName = new Map<string, MetadataColumnId>();
for (const id of sheetColumnIds) {
  for (const name of [id, ...metadataColumnAliases[id]]) byName.set(squash(name), id);
}

/** The column a header names (its id or an alias, any case or punctuation), or undefined. */
export function columnForHeader(header: string): MetadataColumnId | undefined {
  return byName.get(squash(header));
}

/** The header names accepted, one per column, for messages. */
export function acceptedHeaders(): string {
  return sheetColumnIds.map((id) => [id, ...metadataColumnAliases[id]].join('/')).join(', ');
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

/** Names as one cell: "; " between them (a name holding ";" cannot be written in a cell). */
function namesText(artists: readonly DraftArtist[], role: string): string {
  return artists
    .filter((a) => a.role === role)
    .map((a) => a.name)
    .join('; ');
}

/** Artists as one cell: the main artists, "; " between them (other roles are kept). */
export function artistsText(draft: DraftTrack): string {
  return namesText(draft.artists?.value ?? [], artistRoles.main);
}

/** The artists with `role` replaced by `names` (an artist kept keeps its id); others stay. */
function withRole(
  artists: readonly DraftArtist[],
  role: string,
  names: readonly string[],
): DraftArtist[] {
  const replaced: DraftArtist[] = names.map(
    (name) => artists.find((a) => a.role === role && a.name === name) ?? { name, role },
  );
  const at = artists.findIndex((a) => a.role === role);
  const others = artists.filter((a) => a.role !== role);
  // Main artists come first; a role keeps its place; a new role goes last.
  const index = role === artistRoles.main ? 0 : at < 0 ? others.length : at;
  return [...others.slice(0, index), ...replaced, ...others.slice(index)];
}

function withArtists(draft: DraftTrack, value: DraftArtist[], source: ValueSource): DraftTrack {
  const next: DraftTrack = { ...draft };
  if (value.length > 0) next.artists = { value, source };
  else delete next.artists;
  return next;
}

const splitList = (text: string) =>
  text
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean);

/** The cell of the artists with one role: their names, "; " between them. */
function roleCell(role: string): MetadataCell {
  return {
    get: (d) => namesText(d.artists?.value ?? [], role),
    set: (d, text, source) =>
      withArtists(d, withRole(d.artists?.value ?? [], role, splitList(text)), source),
    source: (d) => d.artists?.source,
  };
}

/** The roles with a column of their own; any other role goes in `other_artists`. */
const roleColumns = {
  artists: artistRoles.main,
  album_artist: artistRoles.albumArtist,
  featured: featuredRole,
  composer: artistRoles.composer,
  lyricist: artistRoles.lyricist,
  remixer: artistRoles.remixer,
} as const;
const ownRoles = new Set<string>(Object.values(roleColumns));

/** `Role: name; Role: name` (a name may hold ":", a role not: the first ":" ends the role). */
function otherArtistsText(draft: DraftTrack): string {
  return (draft.artists?.value ?? [])
    .filter((a) => !ownRoles.has(a.role))
    .map((a) => `${a.role}: ${a.name}`)
    .join('; ');
}

/** Pairs `key: value; key: value` as a cell writes them (split at the first ":"). */
function parsePairs(text: string): { key: string; value: string }[] {
  return splitList(text)
    .map((part) => {
      const colon = part.indexOf(':');
      return colon > 0
        ? { key: part.slice(0, colon).trim(), value: part.slice(colon + 1).trim() }
        : { key: '', value: part };
    })
    .filter((p) => p.value !== '');
}

function setOtherArtists(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  const artists = draft.artists?.value ?? [];
  const given: DraftArtist[] = parsePairs(text).map(
    ({ key, value }) =>
      artists.find((a) => a.role === (key || 'Other') && a.name === value) ?? {
        name: value,
        role: key || 'Other',
      },
  );
  const kept = artists.filter((a) => ownRoles.has(a.role));
  return withArtists(draft, [...kept, ...given], source);
}

/** `name = id` for every artist whose id is not its name (the name is sent as id otherwise). */
function artistIdsText(draft: DraftTrack): string {
  const seen = new Set<string>();
  const pairs: string[] = [];
  for (const a of draft.artists?.value ?? []) {
    if (!a.id || a.id === a.name) continue;
    const pair = `${a.name} = ${a.id}`;
    if (!seen.has(pair)) pairs.push(pair);
    seen.add(pair);
  }
  return pairs.join('; ');
}

function setArtistIds(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  const ids = new Map<string, string>();
  for (const part of splitList(text)) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const id = part.slice(eq + 1).trim();
    if (id) ids.set(part.slice(0, eq).trim(), id);
  }
  const artists = draft.artists?.value ?? [];
  if (artists.every((a) => (a.id ?? a.name) === (ids.get(a.name) ?? a.name))) return draft;
  const value = artists.map((a): DraftArtist => {
    const id = ids.get(a.name);
    // Listed nowhere: the name is the id again.
    return id ? { ...a, id } : { name: a.name, role: a.role };
  });
  return withArtists(draft, value, source);
}

/** References as one cell: `source: id; source: id`. */
function referencesText(refs: readonly Reference[] | undefined): string {
  return (refs ?? []).map((r) => `${r.source}: ${r.id}`).join('; ');
}

function parseReferences(text: string): Reference[] {
  return parsePairs(text)
    .filter((p) => p.key !== '')
    .map((p) => ({ source: p.key, id: p.value }));
}

const trackReferences: MetadataCell = {
  get: (d) => referencesText(d.references?.value),
  set: (d, text, source) => {
    const value = parseReferences(text);
    const next: DraftTrack = { ...d };
    if (value.length > 0) next.references = { value, source };
    else delete next.references;
    return next;
  },
  source: (d) => d.references?.source,
};

const albumReferences: MetadataCell = {
  get: (d) => referencesText(d.album?.references?.value),
  set: (d, text, source) => {
    const value = parseReferences(text);
    const album: DraftAlbum = { ...d.album };
    if (value.length > 0) album.references = { value, source };
    else delete album.references;
    const next: DraftTrack = { ...d };
    if (Object.keys(album).length > 0) next.album = album;
    else delete next.album;
    return next;
  },
  source: (d) => d.album?.references?.source,
};

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
  artists: roleCell(roleColumns.artists),
  album_artist: roleCell(roleColumns.album_artist),
  featured: roleCell(roleColumns.featured),
  composer: roleCell(roleColumns.composer),
  lyricist: roleCell(roleColumns.lyricist),
  remixer: roleCell(roleColumns.remixer),
  other_artists: {
    get: otherArtistsText,
    set: setOtherArtists,
    source: (d) => d.artists?.source,
  },
  artist_ids: { get: artistIdsText, set: setArtistIds, source: (d) => d.artists?.source },
  album: albumText('title'),
  upc: albumText('upc'),
  catalog_number: albumText('catalogNumber'),
  label: albumText('label'),
  isrc: trackText('isrc'),
  release_date: {
    get: (d) => d.releaseDate?.value ?? '',
    set: setReleaseDate,
    source: (d) => d.releaseDate?.source,
  },
  album_release_date: albumText('releaseDate'),
  track: albumText('trackPosition'),
  disk: albumText('diskNumber'),
  album_type: albumText('type'),
  customer_tags: {
    get: customerTagsText,
    set: setCustomerTags,
    source: (d) => d.customerTags?.source,
  },
  references: trackReferences,
  album_references: albumReferences,
  lyrics: trackText('lyrics'),
};
