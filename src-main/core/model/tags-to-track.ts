/**
 * Tag → draft track mapping, shared by the renderer's tag worker and the CLI: takes
 * music-metadata's result and the file's relative path, and returns a draft whose every value
 * names the tag it came from. Native tags are read first (so the source is exact and names
 * music-metadata does not map, such as TXXX:UPC, are found); its common tags fill the rest.
 */
import type { IAudioMetadata, ITag } from 'music-metadata';

import { fromId3v23, parseDate } from './dates.js';
import { isValidIsrc, normalizeIsrc } from './isrc.js';
import type {
  CustomerTag,
  DraftAlbum,
  DraftArtist,
  DraftTrack,
  Finding,
  Reference,
  Sourced,
  ValueSource,
} from './track.js';

/** Roles Courier gives the artists it finds in tags. */
export const artistRoles = {
  main: 'Main',
  albumArtist: 'Album Artist',
  composer: 'Composer',
  lyricist: 'Lyricist',
  remixer: 'Remixer',
} as const;

interface Hit {
  id: string;
  tagType: string;
  value: string;
}

/** Tag types whose text music-metadata decodes as Latin-1 though writers often use UTF-8. */
const latin1TagTypes = new Set(['exif', 'AIFF']);

/** RIFF and bext strings are NUL-padded. */
function stripTrailingNuls(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return text.slice(0, end);
}

/** TXXX:UPC, ----:com.apple.iTunes:UPC, upc → UPC: one name per field whatever the family. */
function bareKey(id: string): string {
  let key = id;
  if (key.startsWith('TXXX:')) key = key.slice(5);
  else if (key.startsWith('----:')) key = key.slice(key.lastIndexOf(':') + 1);
  return key.toUpperCase();
}

/** Text RIFF INFO writers stored as UTF-8 but that was read as Latin-1 ("Ã©" → "é"). */
export function repairLatin1Utf8(text: string): string {
  // Only strings made of single bytes with at least one high byte can be misread UTF-8.
  let high = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return text;
    if (code >= 0x80) high = true;
  }
  if (!high) return text;
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return text;
  }
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value && typeof value === 'object' && 'text' in value) {
    const text = (value as { text?: unknown }).text;
    return typeof text === 'string' ? text : undefined;
  }
  return undefined;
}

/** ID3v2.2/2.3 frames music-metadata splits at "/" (it would turn "AC/DC" into two artists). */
export const slashSplitFrames: ReadonlySet<string> = new Set([
  'TPE1',
  'TPE2',
  'TPE3',
  'TPE4',
  'TCOM',
  'TEXT',
  'TOLY',
  'TOPE',
  'TP1',
  'TCM',
  'TXT',
  'TOA',
  'TOL',
  'TSRC',
  'IPLS',
]);

/**
 * Native tags with ID3v2.3's slash-split values joined back into the text the file holds. A
 * frame whose values were NUL-separated (music-metadata says so in a warning) really holds
 * several values: those stay apart.
 */
function unsplit(tagType: string, tags: ITag[], warnings: readonly string[]): ITag[] {
  if (tagType !== 'ID3v2.3' && tagType !== 'ID3v2.2') return tags;
  const nulSeparated = new Set(
    warnings
      .map((w) => /^ID3v2\.[23] (\w+) uses non standard null-separator/.exec(w)?.[1])
      .filter((id): id is string => id !== undefined),
  );
  const joined: ITag[] = [];
  for (const tag of tags) {
    const last = joined.at(-1);
    const family = tag.id.startsWith('TXXX:') ? 'TXXX' : tag.id;
    const splits =
      (slashSplitFrames.has(tag.id) || tag.id.startsWith('TXXX:')) && !nulSeparated.has(family);
    if (
      splits &&
      last?.id === tag.id &&
      typeof last.value === 'string' &&
      typeof tag.value === 'string'
    ) {
      joined[joined.length - 1] = { id: tag.id, value: `${last.value}/${tag.value}` };
    } else {
      joined.push(tag);
    }
  }
  return joined;
}

class NativeTags {
  private readonly byKey = new Map<string, Hit[]>();

  constructor(meta: IAudioMetadata) {
    const warnings = meta.quality.warnings.map((w) => w.message);
    for (const [tagType, tags] of Object.entries(meta.native)) {
      for (const tag of unsplit(tagType, tags, warnings)) {
        let text = textOf(tag.value);
        if (text === undefined) continue;
        if (latin1TagTypes.has(tagType)) text = repairLatin1Utf8(text);
        // iTunes wrote ID3v2.2 names NUL-padded to four characters into v2.3 tags ("TP1\0").
        const id = stripTrailingNuls(tag.id);
        const key = bareKey(id);
        // A NUL inside a value separates values (ID3v2.3 writers do it: TYER "2009\02009").
        const whole = stripTrailingNuls(text);
        for (const value of whole.includes('\u0000') ? whole.split('\u0000') : [whole]) {
          if (value.trim() === '') continue;
          const list = this.byKey.get(key);
          const hit = { id, tagType, value };
          if (list) list.push(hit);
          else this.byKey.set(key, [hit]);
        }
      }
    }
  }

  first(keys: readonly string[]): Hit | undefined {
    for (const key of keys) {
      const hit = this.byKey.get(key)?.[0];
      if (hit) return hit;
    }
    return undefined;
  }

  /**
   * Every value of the first key present, from one tag: a file carrying two tags (an ID3v2.3
   * then an ID3v2.4 tag) gives the first tag's values, not both tags' merged.
   */
  all(keys: readonly string[]): Hit[] {
    for (const key of keys) {
      const hits = this.byKey.get(key);
      if (hits && hits.length > 0) return hits.filter((h) => h.tagType === hits[0]!.tagType);
    }
    return [];
  }
}

const keys = {
  title: ['TIT2', 'TT2', 'TITLE', '©NAM', 'INAM', 'TITL', 'NAME'],
  artist: ['TPE1', 'TP1', 'ARTIST', '©ART', 'IART', 'AUTH'],
  /** One artist a value (Picard, Discogs taggers): Vorbis ARTISTS, TXXX:ARTISTS, iTunes ARTISTS. */
  artists: ['ARTISTS'],
  albumArtist: ['TPE2', 'TP2', 'ALBUMARTIST', 'ALBUM ARTIST', 'AART'],
  composer: ['TCOM', 'TCM', 'COMPOSER', '©WRT', 'IWRI'],
  lyricist: ['TEXT', 'TXT', 'LYRICIST', 'WRITER'],
  remixer: ['TPE4', 'TP4', 'REMIXER', 'MIXARTIST'],
  album: ['TALB', 'TAL', 'ALBUM', '©ALB', 'IPRD', 'IRPD'],
  isrc: ['TSRC', 'TRC', 'ISRC'],
  barcode: ['BARCODE', 'UPC', 'EAN', 'UPC/EAN', 'EAN/UPC', 'UPC_EAN', 'GTIN'],
  track: ['TRCK', 'TRK', 'TRACKNUMBER', 'TRACK', 'TRKN', 'ITRK', 'IPRT'],
  disk: ['TPOS', 'TPA', 'DISCNUMBER', 'DISC', 'DISK', 'DISKNUMBER'],
  date: ['TDRL', 'RELEASEDATE', 'RELEASE DATE', 'TDRC', 'DATE', '©DAY', 'ICRD'],
  year: ['TYER', 'TYE', 'YEAR'],
  lyrics: ['USLT', 'ULT', 'LYRICS', 'UNSYNCEDLYRICS', 'UNSYNCED LYRICS', '©LYR'],
  genre: ['TCON', 'TCO', 'GENRE', '©GEN', 'IGNR', 'GNRE'],
  mood: ['TMOO', 'MOOD'],
  label: ['TPUB', 'TPB', 'LABEL', 'ORGANIZATION', 'PUBLISHER'],
  catalog: ['CATALOGNUMBER', 'CATALOG NUMBER', 'CATALOG', 'CATALOGNO', 'CATALOG_NUMBER', 'LABELNO'],
  compilation: ['TCMP', 'TCP', 'COMPILATION', 'CPIL'],
} as const;

function fromTag(hit: Hit): ValueSource {
  return { kind: 'tag', tag: hit.id };
}

/** Source for a value only music-metadata's common result had. */
function common(meta: IAudioMetadata, field: string): ValueSource {
  return { kind: 'tag', tag: `${meta.format.tagTypes[0] ?? 'tags'}:${field}` };
}

function sourced(hit: Hit | undefined, transform: (v: string) => string = (v) => v.trim()) {
  if (!hit) return undefined;
  const value = transform(hit.value);
  return value === '' ? undefined : { value, source: fromTag(hit) };
}

/** The position in "3/12"; a zero ("0", "00/12") means none was set, as taggers write it. */
function numberPart(raw: string): string {
  const part = (raw.split('/')[0] ?? '').trim();
  return /^0+$/.test(part) ? '' : part;
}

/** A date whose year is 0000 ("0000", "0000-00-00", "0") means none was set, as taggers write it. */
function zeroYear(value: string): boolean {
  // A year tag "0000" comes through as the number 0.
  const text = value.trim();
  return /^0+$/.test(text) || /^0{4}/.test(text);
}

function nonEmpty<T>(values: T[] | undefined): values is T[] {
  return values !== undefined && values.length > 0;
}

/** Builds the draft for one file from its parsed tags; `file` is its delivery-relative path. */
export function draftFromMetadata(
  meta: IAudioMetadata,
  file: string,
  /** What reading found worth saying (a second ISRC…), as warnings of the file. */
  notes: Finding[] = [],
): DraftTrack {
  const tags = new NativeTags(meta);
  const c = meta.common;
  const title =
    sourced(tags.first(keys.title)) ??
    (c.title ? { value: c.title.trim(), source: common(meta, 'title') } : undefined);
  const isrcs = isrcsFrom(tags, meta);
  const releaseDate = dateFrom(tags, meta);
  const lyricsTag = tags.first(keys.lyrics);
  const commonLyrics = c.lyrics?.[0]?.text;
  const lyrics = lyricsTag
    ? { value: lyricsTag.value, source: fromTag(lyricsTag) }
    : commonLyrics
      ? { value: commonLyrics, source: common(meta, 'lyrics') }
      : undefined;

  const trackRefs: Reference[] = [];
  let references: Sourced<Reference[]> | undefined;
  if (c.musicbrainz_recordingid) {
    trackRefs.push({ id: c.musicbrainz_recordingid, source: 'musicbrainz' });
    references = { value: trackRefs, source: common(meta, 'musicbrainz_recordingid') };
  }
  if (isrcs.others.length > 0 && isrcs.isrc) {
    // A second ISRC (a re-release, a radio edit) is the track's too: kept as a reference.
    trackRefs.push(...isrcs.others.map((id) => ({ id, source: 'isrc' })));
    references = { value: trackRefs, source: isrcs.isrc.source };
    notes.push({
      level: 'warning',
      field: 'isrc',
      message: `the tags give ${isrcs.others.length + 1} ISRCs: ${isrcs.isrc.value} is the track's, ${isrcs.others.join(', ')} kept as reference(s)`,
    });
  }
  const album = albumFrom(tags, meta, releaseDate);

  // Only the fields found are set (a property deleted afterwards would leave every draft a slow
  // dictionary object for all the review that follows).
  return definedOnly({
    file,
    primaryMedia: { value: file, source: { kind: 'file-name' } },
    title,
    isrc: isrcs.isrc,
    releaseDate,
    lyrics,
    artists: artistsFrom(tags, meta),
    customerTags: customerTagsFrom(tags, meta),
    references,
    album: Object.keys(album).length > 0 ? album : undefined,
  });
}

/** `record` without its undefined fields, built afresh rather than by deleting them. */
function definedOnly<T extends object>(record: T): T {
  const kept = {} as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) if (value !== undefined) kept[key] = value;
  return kept as T;
}

/** ISRCs written together in one value: "GBAYE2100101/USRC17607839", "a; b", NUL-separated. */
// eslint-disable-next-line no-control-regex -- ID3v2.4 separates values with NUL
const ISRC_SEPARATORS = /[\s/;,|\u0000]+/;

/**
 * The track's ISRC: the first valid one the tags give (several values, or several ISRCs in one
 * value, each counted), else the first given as it is, for validation to report; `others`: the
 * other valid ones, in order.
 */
function isrcsFrom(
  tags: NativeTags,
  meta: IAudioMetadata,
): { isrc?: Sourced<string>; others: string[] } {
  const given: Array<{ value: string; source: ValueSource }> = [];
  for (const hit of tags.all(keys.isrc)) {
    // RIFF INFO "ISRC" officially means "source"; trust it only when it holds an ISRC.
    if (hit.tagType === 'exif' && !isValidIsrc(normalizeIsrc(hit.value))) continue;
    given.push({ value: hit.value, source: fromTag(hit) });
  }
  // BWF: by convention (EBU R 68 usage) an ISRC may sit in the bext description.
  const bext = tags.first(['BEXT.DESCRIPTION']);
  const inBext = bext && /ISRC[:=\s]*([A-Z]{2}-?[A-Z0-9]{3}-?\d{2}-?\d{5})/i.exec(bext.value);
  if (given.length === 0 && bext && inBext?.[1]) {
    given.push({ value: inBext[1], source: fromTag(bext) });
  }
  if (given.length === 0) {
    for (const isrc of meta.common.isrc ?? [])
      given.push({ value: isrc, source: common(meta, 'isrc') });
  }
  const valid: Array<{ value: string; source: ValueSource }> = [];
  for (const { value, source } of given) {
    const whole = value.trim();
    // One value that is one ISRC (hyphens and all) stays as written.
    const parts = isValidIsrc(normalizeIsrc(whole)) ? [whole] : whole.split(ISRC_SEPARATORS);
    for (const part of parts)
      if (isValidIsrc(normalizeIsrc(part))) valid.push({ value: part, source });
  }
  if (valid.length === 0) {
    const first = given.find((g) => g.value.trim() !== '');
    return {
      ...(first ? { isrc: { value: first.value.trim(), source: first.source } } : {}),
      others: [],
    };
  }
  const seen = new Set<string>();
  const unique = valid.filter((v) => {
    const key = normalizeIsrc(v.value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const [first, ...others] = unique;
  return { isrc: first, others: others.map((o) => normalizeIsrc(o.value)) };
}

/** Every date the tags give, in order of trust: release date, date, the ID3v2.3 pair, common. */
function dateCandidates(tags: NativeTags, meta: IAudioMetadata): Array<Sourced<string>> {
  const found: Array<Sourced<string>> = [];
  for (const key of keys.date) {
    const hit = tags.first([key]);
    if (hit) found.push({ value: hit.value.trim(), source: fromTag(hit) });
  }
  const year = tags.first(keys.year);
  if (year) {
    // ID3v2.3 splits a date into TYER (YYYY) and TDAT (DDMM).
    const tdat = tags.first(['TDAT', 'TDA']);
    const value = fromId3v23(year.value, tdat?.value);
    const tag = tdat && value.length > 4 ? `${year.id}+${tdat.id}` : year.id;
    found.push({ value, source: { kind: 'tag', tag } });
  }
  const c = meta.common;
  if (c.releasedate) found.push({ value: c.releasedate, source: common(meta, 'releasedate') });
  if (c.date) found.push({ value: c.date, source: common(meta, 'date') });
  if (c.year) found.push({ value: String(c.year), source: common(meta, 'year') });
  return found.filter((d) => d.value !== '' && !zeroYear(d.value));
}

/**
 * The release date: the most trusted date the tags give, refined by a more precise one of the
 * same year from another source (a WAV's own "2005" and its ID3 "2005-03-02" give the day);
 * another year is another date (a recording date), never a refinement.
 */
function dateFrom(tags: NativeTags, meta: IAudioMetadata): Sourced<string> | undefined {
  const [first, ...others] = dateCandidates(tags, meta);
  if (!first) return undefined;
  const precision = (d: Sourced<string>) => {
    const parsed = parseDate(d.value);
    return parsed ? (parsed.day !== undefined ? 3 : parsed.month !== undefined ? 2 : 1) : 0;
  };
  const year = parseDate(first.value)?.year;
  let best = first;
  for (const other of others) {
    if (parseDate(other.value)?.year === year && precision(other) > precision(best)) best = other;
  }
  return best;
}

/**
 * The names of one ARTISTS value: one name a value, except where the family packs several in
 * one — NUL-separated anywhere, and "/" in ID3v2.2/2.3, the versions' own way of writing several
 * values (there a name holding "/" cannot be told from two names; v2.4, Vorbis and MP4 keep
 * each value apart, so "AC/DC" stays whole).
 */
function artistNames(hit: Hit): string[] {
  // eslint-disable-next-line no-control-regex -- NUL is a value separator in ID3
  const packed = hit.tagType === 'ID3v2.3' || hit.tagType === 'ID3v2.2' ? /[/\u0000]/ : /\u0000/;
  return hit.value
    .split(packed)
    .map((name) => name.trim())
    .filter(Boolean);
}

function artistsFrom(tags: NativeTags, meta: IAudioMetadata): Sourced<DraftArtist[]> | undefined {
  const c = meta.common;
  // Native values first: they keep each name as the file writes it ("AC/DC" stays whole in
  // ID3v2.3); music-metadata's common lists fill in for families not read natively here.
  const names = (nativeKeys: readonly string[], fallback: string[] | undefined) => {
    const hits = tags.all(nativeKeys);
    return hits.length > 0 ? hits.map((h) => h.value) : (fallback ?? []);
  };
  const artists: DraftArtist[] = [];
  const seen = new Set<string>();
  const add = (name: string, role: string) => {
    const clean = name.trim();
    const key = `${role}\u0000${clean.toLowerCase()}`;
    if (clean === '' || seen.has(key)) return;
    seen.add(key);
    artists.push({ name: clean, role });
  };
  // The ARTISTS tag lists the credit's artists one by one ("Beth Hart", "Joe Bonamassa") where
  // ARTIST holds the credit as shown ("Beth Hart & Joe Bonamassa"): the list wins.
  const listed = tags.all(keys.artists).flatMap(artistNames);
  const main =
    listed.length > 0
      ? listed
      : names(keys.artist, nonEmpty(c.artists) ? c.artists : c.artist ? [c.artist] : []);
  for (const name of main) add(name, artistRoles.main);
  const mainNames = new Set(artists.map((a) => a.name.toLowerCase()));
  const albumArtists = names(
    keys.albumArtist,
    c.albumartists ?? (c.albumartist ? [c.albumartist] : []),
  );
  for (const name of albumArtists) {
    const lower = name.trim().toLowerCase();
    if (!mainNames.has(lower) && lower !== 'various artists' && lower !== 'va') {
      add(name, artistRoles.albumArtist);
    }
  }
  for (const name of names(keys.composer, c.composer)) add(name, artistRoles.composer);
  for (const name of names(keys.lyricist, c.lyricist)) add(name, artistRoles.lyricist);
  for (const name of names(keys.remixer, c.remixer)) add(name, artistRoles.remixer);
  if (artists.length === 0) return undefined;
  const hit = listed.length > 0 ? tags.first(keys.artists) : tags.first(keys.artist);
  if (!hit) return { value: artists, source: common(meta, 'artists') };
  // ID3v2.3/2.2 join several values with "/": the names were kept whole, and validation may
  // offer to split them there (`artists.ts`).
  const joined =
    listed.length === 0 &&
    (hit.tagType === 'ID3v2.3' || hit.tagType === 'ID3v2.2') &&
    artists.some((a) => a.name.includes('/'));
  return {
    value: artists,
    source: joined ? { kind: 'tag', tag: hit.id, joinedWith: '/' } : fromTag(hit),
  };
}

function customerTagsFrom(
  tags: NativeTags,
  meta: IAudioMetadata,
): Sourced<CustomerTag[]> | undefined {
  const c = meta.common;
  const result: CustomerTag[] = [];
  const seen = new Set<string>();
  const add = (tag: string, category: string) => {
    const clean = tag.trim();
    const key = `${category}\u0000${clean.toLowerCase()}`;
    if (clean === '' || seen.has(key)) return;
    seen.add(key);
    result.push({ tag: clean, category });
  };
  const genreHits = tags.all(keys.genre);
  // Common genres resolve ID3v1 numeric references such as "(17)"; RIFF text needs the repair.
  const genres =
    genreHits.length > 0 && latin1TagTypes.has(genreHits[0]!.tagType)
      ? genreHits.map((h) => h.value)
      : (c.genre ?? genreHits.map((h) => h.value));
  for (const genre of genres) add(genre, 'Genre');
  const moodHits = tags.all(keys.mood);
  for (const mood of moodHits.length > 0 ? moodHits.map((h) => h.value) : c.mood ? [c.mood] : []) {
    add(mood, 'Mood');
  }
  if (result.length === 0) return undefined;
  const hits = [genreHits[0], moodHits[0]].filter((h): h is Hit => h !== undefined);
  const source: ValueSource =
    hits.length > 0 ? { kind: 'tag', tag: hits.map((h) => h.id).join('+') } : common(meta, 'genre');
  return { value: result, source };
}

function albumFrom(
  tags: NativeTags,
  meta: IAudioMetadata,
  releaseDate: Sourced<string> | undefined,
): DraftAlbum {
  const c = meta.common;
  const album: DraftAlbum = {};
  album.title =
    sourced(tags.first(keys.album)) ??
    (c.album ? { value: c.album.trim(), source: common(meta, 'album') } : undefined);
  album.upc =
    sourced(tags.first(keys.barcode)) ??
    (c.barcode ? { value: c.barcode.trim(), source: common(meta, 'barcode') } : undefined);
  album.trackPosition =
    sourced(tags.first(keys.track), numberPart) ??
    (c.track.no ? { value: String(c.track.no), source: common(meta, 'track') } : undefined);
  album.diskNumber =
    sourced(tags.first(keys.disk), numberPart) ??
    (c.disk.no ? { value: String(c.disk.no), source: common(meta, 'disk') } : undefined);
  album.label =
    sourced(tags.first(keys.label)) ??
    (c.label?.[0] ? { value: c.label[0].trim(), source: common(meta, 'label') } : undefined);
  album.catalogNumber =
    sourced(tags.first(keys.catalog)) ??
    (c.catalognumber?.[0]
      ? { value: c.catalognumber[0].trim(), source: common(meta, 'catalognumber') }
      : undefined);

  const compilation = tags.first(keys.compilation);
  const releaseType = c.releasetype?.map((t) => t.toLowerCase()) ?? [];
  if (compilation && /^(1|true|yes)$/i.test(compilation.value.trim())) {
    album.type = { value: 'Compilation', source: fromTag(compilation) };
  } else if (!compilation && c.compilation) {
    album.type = { value: 'Compilation', source: common(meta, 'compilation') };
  } else if (releaseType.includes('compilation')) {
    album.type = { value: 'Compilation', source: common(meta, 'releasetype') };
  } else if (releaseType.includes('single')) {
    album.type = { value: 'Single', source: common(meta, 'releasetype') };
  }

  if (c.musicbrainz_albumid) {
    album.references = {
      value: [{ id: c.musicbrainz_albumid, source: 'musicbrainz' }],
      source: common(meta, 'musicbrainz_albumid'),
    };
  }
  const hasAlbum = album.title || album.upc || album.catalogNumber || album.trackPosition;
  if (hasAlbum && releaseDate) album.releaseDate = releaseDate;

  return definedOnly(album);
}
