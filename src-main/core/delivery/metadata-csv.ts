/**
 * `--metadata FILE.csv` merged over the tags: each row is matched to a track by ISRC, then by
 * outer_id, then by relative path; a non-empty cell sets its field, an empty cell never erases.
 */
import type { TrackBody } from '../model/ingestion-body.js';
import { normalizeIsrc } from '../model/isrc.js';

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF) into rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ''));
}

/** Columns the merge understands (others are reported and ignored). */
export const metadataColumns = [
  'path',
  'outer_id',
  'isrc',
  'title',
  'lyrics',
  'release_date',
  'primary_media',
  'artist',
  'album_title',
  'upc',
] as const;

/** One row of the CSV, keyed by column. */
export type MetadataRow = Partial<Record<(typeof metadataColumns)[number], string>>;

/** Reads the rows of a metadata CSV; unknown columns are returned so the caller can warn. */
export function readMetadataCsv(text: string): { rows: MetadataRow[]; unknown: string[] } {
  const [header = [], ...lines] = parseCsv(text);
  const names = header.map((h) => h.trim().toLowerCase());
  const known = new Set<string>(metadataColumns);
  const unknown = names.filter((n) => !known.has(n));
  const rows = lines.map((line) => {
    const row: MetadataRow = {};
    names.forEach((name, i) => {
      const value = (line[i] ?? '').trim();
      if (known.has(name) && value !== '') row[name as keyof MetadataRow] = value;
    });
    return row;
  });
  return { rows, unknown };
}

/** A track with the file it came from. */
export interface TrackWithPath {
  path?: string;
  track: TrackBody | null;
}

/**
 * Merges rows over tracks (in place) and returns the rows that matched nothing. A row whose
 * `path` matches no file but that carries a URL `primary_media` becomes a new track
 * (media_fetch_type=download).
 */
export function mergeMetadata(tracks: TrackWithPath[], rows: MetadataRow[]): MetadataRow[] {
  const unmatched: MetadataRow[] = [];
  for (const row of rows) {
    const isrc = row.isrc ? normalizeIsrc(row.isrc) : undefined;
    const target =
      (isrc ? tracks.find((t) => t.track?.isrc === isrc) : undefined) ??
      (row.outer_id ? tracks.find((t) => t.track?.outer_id === row.outer_id) : undefined) ??
      (row.path ? tracks.find((t) => t.path === row.path) : undefined);
    if (!target?.track) {
      unmatched.push(row);
      continue;
    }
    const track = target.track;
    if (row.outer_id) track.outer_id = row.outer_id;
    if (isrc) track.isrc = isrc;
    if (row.title) track.title = row.title;
    if (row.lyrics) track.lyrics = row.lyrics;
    if (row.primary_media) track.primary_media = row.primary_media;
    if (row.release_date && /^\d{8}$/.test(row.release_date.replaceAll('-', ''))) {
      track.release_date = Number(row.release_date.replaceAll('-', ''));
    }
    if (row.artist) {
      track.artists = [{ id: row.artist, name: row.artist, role: 'Main' }];
    }
    if (row.album_title || row.upc) {
      const album = { ...(track.albums?.[0] ?? {}) };
      if (row.album_title) album.title = row.album_title;
      if (row.upc) album.upc = row.upc;
      track.albums = [album];
    }
  }
  return unmatched;
}
