/**
 * A metadata sheet (CSV or .xlsx) merged over drafts, the same for the grid's import and
 * `courier deliver --metadata`: headers mapped onto the shared column vocabulary, each row
 * joined to one track — by its file (relative path), else its outer_id, else its ISRC only when
 * exactly one track carries it; the first key a row has that matches decides — and each
 * non-empty cell written through its column and validated. An empty cell never erases; a row
 * that matches several tracks changes nothing until a choice names one of them (or skips it);
 * a value that is the track's own as a spreadsheet rewrote it (leading zeros dropped) is kept.
 */
import { UsageError } from '../errors.js';
import { type CsvTable, readCsv, type ReadCsvOptions } from './csv-text.js';
import { toYyyymmdd } from './dates.js';
import { normalizeGtin, sameGtin } from './gtin.js';
import { normalizePosition } from './ingestion-body.js';
import { normalizeIsrc } from './isrc.js';
import {
  acceptedHeaders,
  columnForHeader,
  metadataCells,
  type MetadataColumnId,
  metadataColumnLabels,
  sheetColumnIds,
} from './metadata-columns.js';
import { sharedSource } from './shared-sources.js';
import type { DraftTrack, Finding } from './track.js';
import { quoted } from './user-text.js';
import { upcSpellingFindings, validateTrack } from './validate.js';

/** Where each CSV column goes, by header index: a metadata column, or nowhere (''). */
export type CsvMapping = (MetadataColumnId | '')[];

/** The mapping the headers suggest; a header naming no column maps to ''. */
export function guessMapping(header: readonly string[]): CsvMapping {
  return header.map((h) => columnForHeader(h) ?? '');
}

/**
 * The mapping of a CSV whose every header must name a column (the CLI's): throws a UsageError
 * naming the unknown or repeated headers and listing the accepted names.
 */
export function strictMapping(header: readonly string[], name = 'the CSV'): CsvMapping {
  const mapping = guessMapping(header);
  const unknown = header.filter((h, i) => mapping[i] === '' && h.trim() !== '');
  if (unknown.length > 0) {
    throw new UsageError(
      `${name}: unknown column(s) ${unknown.map((h) => quoted(h)).join(', ')}; rename them to one of ${acceptedHeaders()}`,
    );
  }
  const seen = new Map<MetadataColumnId, string>();
  header.forEach((h, i) => {
    const id = mapping[i];
    if (!id) return;
    const first = seen.get(id);
    if (first !== undefined) {
      throw new UsageError(
        `${name}: columns ${quoted(first)} and ${quoted(h)} both give ${id}; keep one of them`,
      );
    }
    seen.set(id, h);
  });
  if (!mapping.some((id) => id === 'file' || id === 'outer_id' || id === 'isrc')) {
    throw new UsageError(
      `${name}: no file, outer_id or isrc column, so no row can be matched to a track; add one`,
    );
  }
  return mapping;
}

/**
 * Reads a metadata CSV for `courier deliver --metadata`: bytes decoded and parsed as `readCsv`
 * does, then checked as `checkMetadataTable` does. Throws a one-line CourierError (unreadable
 * bytes) or UsageError (columns, cells).
 */
export function readMetadataCsv(
  bytes: Uint8Array,
  options: ReadCsvOptions = {},
): { table: Pick<CsvTable, 'header' | 'rows'>; mapping: CsvMapping } {
  const name = options.name ?? 'the CSV';
  return checkMetadataTable(readCsv(bytes, { ...options, name }), name);
}

/**
 * A metadata sheet (CSV or .xlsx) as the CLI takes it: a header row, every header naming a
 * column, no row wider than the header. Throws a UsageError naming what to fix.
 */
export function checkMetadataTable(
  table: Pick<CsvTable, 'header' | 'rows'>,
  name = 'the CSV',
): { table: Pick<CsvTable, 'header' | 'rows'>; mapping: CsvMapping } {
  if (table.header.length === 0) {
    throw new UsageError(`${name} is empty; it needs a header row naming its columns`);
  }
  const mapping = strictMapping(table.header, name);
  const wide = table.rows.find((row) =>
    row.cells.slice(table.header.length).some((cell) => cell.trim() !== ''),
  );
  if (wide) {
    throw new UsageError(
      `${name} row ${wide.line} has ${wide.cells.length} cells but the header names ${table.header.length} columns; check the delimiter and quotes`,
    );
  }
  return { table, mapping };
}

/** A file path as the matcher compares it: NFC, forward slashes, no leading "./". */
export function matchPath(path: string): string {
  return path.trim().replace(/\\/g, '/').replace(/^\.\//, '').normalize('NFC');
}

/** What one row matched. */
export type RowMatch =
  | { kind: 'track'; index: number }
  | { kind: 'none' }
  | { kind: 'several'; by: 'file' | 'outer_id' | 'isrc'; indexes: number[] };

/** The keys a row is matched by (empty when the row has no such cell). */
export interface RowKeys {
  file?: string;
  outerId?: string;
  isrc?: string;
}

/** A path's tails at folder boundaries, longest first: `a/b/c.mp3` → `b/c.mp3`, `c.mp3`. */
function tails(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(i + 1).join('/'));
}

/**
 * A matcher over drafts: the file first, then outer_id, then an ISRC only one track carries.
 * A file matches exactly or, failing that, by its tail: the grid's paths start with the folder
 * the user dropped (`Night Shift/03 Harbour.m4a`), the CLI's are relative to that folder.
 */
export function rowMatcher(drafts: readonly DraftTrack[]): (keys: RowKeys) => RowMatch {
  const index = (keys: (d: DraftTrack) => (string | undefined)[]) => {
    const map = new Map<string, number[]>();
    drafts.forEach((draft, i) => {
      for (const k of new Set(keys(draft))) {
        if (!k) continue;
        const list = map.get(k);
        if (list) list.push(i);
        else map.set(k, [i]);
      }
    });
    return map;
  };
  const byFile = index((d) => [matchPath(d.file)]);
  const byFileTail = index((d) => tails(matchPath(d.file)));
  const byOuterId = index((d) => [d.outerId?.value.trim()]);
  const byIsrc = index((d) => [d.isrc && normalizeIsrc(d.isrc.value)]);
  const fileMatches = (file: string): number[] | undefined => {
    const path = matchPath(file);
    if (byFile.has(path)) return byFile.get(path);
    for (const tail of tails(path)) if (byFile.has(tail)) return byFile.get(tail);
    return byFileTail.get(path);
  };
  return (keys) => {
    const steps = [
      ['file', keys.file?.trim() && fileMatches(keys.file)],
      ['outer_id', keys.outerId?.trim() && byOuterId.get(keys.outerId.trim())],
      ['isrc', keys.isrc?.trim() && byIsrc.get(normalizeIsrc(keys.isrc))],
    ] as const;
    for (const [by, found] of steps) {
      if (!found || found.length === 0) continue;
      if (found.length === 1) return { kind: 'track', index: found[0]! };
      return { kind: 'several', by, indexes: found };
    }
    return { kind: 'none' };
  };
}

/** Which track an ambiguous row is for, by its line: the chosen file, or null to skip the row. */
export type CsvChoices = ReadonlyMap<number, string | null>;

/** One change a CSV makes to a track. */
export interface CsvChange {
  /** The index of the track among the drafts merged over. */
  track: number;
  file: string;
  /** The row it comes from (the header is row 1). */
  line: number;
  column: MetadataColumnId;
  header: string;
  before: string;
  after: string;
  /** What validation says of the new value (the rules of `validate.ts`), empty when it is fine. */
  findings: Finding[];
}

/** A cell left unapplied because it is the track's value as a spreadsheet rewrote it. */
export interface CsvNote {
  line: number;
  file: string;
  column: MetadataColumnId;
  message: string;
}

/** A row that matched no track, or several. */
export interface CsvRowProblem {
  /** The row's number in the file (the header is row 1). */
  line: number;
  /** How the row names its track, for messages: `file A/01.flac`. */
  key: string;
  /** The files of the tracks it would match (empty when it matches none). */
  tracks: string[];
}

/** What merging a CSV does. */
export interface CsvMerge {
  /** Every draft, the changed ones replaced. */
  drafts: DraftTrack[];
  changes: CsvChange[];
  /** Rows that matched exactly one track (an ambiguous row once a track is chosen for it). */
  matched: number;
  unmatched: CsvRowProblem[];
  /** Rows that match several tracks and no choice says which: they change nothing. */
  ambiguous: CsvRowProblem[];
  /** Ambiguous rows the user chose to skip. */
  skipped: CsvRowProblem[];
  notes: CsvNote[];
}

function keysOf(cells: readonly string[], mapping: CsvMapping): RowKeys {
  const cell = (id: MetadataColumnId) => {
    const i = mapping.indexOf(id);
    return i >= 0 ? (cells[i] ?? '').trim() || undefined : undefined;
  };
  return { file: cell('file'), outerId: cell('outer_id'), isrc: cell('isrc') };
}

function describeKeys(keys: RowKeys): string {
  if (keys.file) return `file ${keys.file}`;
  if (keys.outerId) return `outer_id ${keys.outerId}`;
  if (keys.isrc) return `ISRC ${keys.isrc}`;
  return 'no file, outer_id or isrc';
}

const digits = /^\d+$/;

/** Whether `after` is `before` with its leading zeros dropped, as a spreadsheet writes a code it read as a number. */
function zerosDropped(before: string, after: string): boolean {
  return (
    digits.test(before) &&
    digits.test(after) &&
    after.length < before.length &&
    after.padStart(before.length, '0') === before
  );
}

/**
 * Whether a cell says what the draft already says in another spelling: not a change. Returns
 * 'same' (silently), 'spreadsheet' (the value as a spreadsheet rewrote it: kept, with a note), or
 * undefined when it is a change.
 */
function sameValue(
  id: MetadataColumnId,
  before: string,
  after: string,
): 'same' | 'spreadsheet' | undefined {
  if (before === '') return undefined;
  switch (id) {
    case 'isrc':
      return normalizeIsrc(before) === normalizeIsrc(after) ? 'same' : undefined;
    case 'upc':
      if (normalizeGtin(before) === normalizeGtin(after)) return 'same';
      // Shorter: the zeros a spreadsheet dropped. Longer (the EAN-13 form of a UPC-A): a change.
      return sameGtin(before, after) && normalizeGtin(after).length < normalizeGtin(before).length
        ? 'spreadsheet'
        : undefined;
    case 'track':
    case 'disk':
      return normalizePosition(before) === normalizePosition(after) ? 'same' : undefined;
    case 'release_date':
    case 'album_release_date': {
      const date = toYyyymmdd(before);
      return date !== null && date === toYyyymmdd(after) ? 'same' : undefined;
    }
    case 'outer_id':
    case 'catalog_number':
      return zerosDropped(before.trim(), after) ? 'spreadsheet' : undefined;
    default:
      return undefined;
  }
}

/** The validation fields (`Finding.field`) a column's value is checked under. */
const checkedFields: Partial<Record<MetadataColumnId, readonly string[]>> = {
  outer_id: ['outer_id'],
  isrc: ['isrc'],
  upc: ['album.upc'],
  release_date: ['release_date', 'album.release_date'],
  album_release_date: ['album.release_date'],
  track: ['album.track_position'],
  disk: ['album.disk_number'],
};

/** A row's cells by column, in the vocabulary's order (a later column may refine an earlier). */
function cellsInOrder(
  cells: readonly string[],
  mapping: CsvMapping,
): { id: MetadataColumnId; index: number }[] {
  return sheetColumnIds.flatMap((id) => {
    const index = mapping.indexOf(id);
    return index >= 0 ? [{ id, index }] : [];
  });
}

/**
 * Writes a row's non-empty cells onto a draft through their columns (source: the CSV column);
 * returns the new draft, what changed (each new value with what validation says of it) and the
 * cells left alone as the draft's own value rewritten by a spreadsheet. The file column names
 * the track and is not written.
 */
export function applyRow(
  draft: DraftTrack,
  cells: readonly string[],
  header: readonly string[],
  mapping: CsvMapping,
): {
  draft: DraftTrack;
  changes: Omit<CsvChange, 'track' | 'file' | 'line'>[];
  notes: Omit<CsvNote, 'line' | 'file'>[];
} {
  const changes: Omit<CsvChange, 'track' | 'file' | 'line'>[] = [];
  const notes: Omit<CsvNote, 'line' | 'file'>[] = [];
  let next = draft;
  for (const { id, index } of cellsInOrder(cells, mapping)) {
    const cell = metadataCells[id];
    if (!cell.set) continue;
    const value = (cells[index] ?? '').trim();
    if (value === '') continue;
    const before = cell.get(next);
    if (before === value) continue;
    const same = sameValue(id, before, value);
    if (same === 'spreadsheet') {
      notes.push({
        column: id,
        message: `${metadataColumnLabels[id]} ${quoted(value)} is ${quoted(before)} without its leading zeros (a spreadsheet drops them); ${quoted(before)} is kept`,
      });
    }
    if (same) continue;
    const column = header[index] ?? id;
    next = cell.set(next, value, sharedSource({ kind: 'csv', column }));
    changes.push({ column: id, header: column, before, after: value, findings: [] });
  }
  if (changes.length > 0) {
    const findings = validateTrack(next);
    for (const change of changes) {
      const fields = checkedFields[change.column] ?? [];
      change.findings = findings.filter((f) => f.field && fields.includes(f.field));
    }
  }
  return { draft: next, changes, notes };
}

/**
 * A new track for a row whose file cell is a URL and that has an outer_id (the service fetches
 * the audio: media_fetch_type=download), or undefined for any other row.
 */
export function urlRowDraft(
  cells: readonly string[],
  header: readonly string[],
  mapping: CsvMapping,
): DraftTrack | undefined {
  const keys = keysOf(cells, mapping);
  if (!keys.file || !/^https?:\/\//i.test(keys.file) || !keys.outerId) return undefined;
  const column = header[mapping.indexOf('file')] ?? 'file';
  const draft: DraftTrack = {
    file: keys.file,
    primaryMedia: { value: keys.file, source: sharedSource({ kind: 'csv', column }) },
  };
  return applyRow(draft, cells, header, mapping).draft;
}

/**
 * Merges a sheet's rows over drafts (never mutating them); see the module comment for the rules.
 * `choices` say which track an ambiguous row is for (one of the files it matches) or to skip it.
 */
export function mergeCsv(
  drafts: readonly DraftTrack[],
  table: Pick<CsvTable, 'header' | 'rows'>,
  mapping: CsvMapping,
  choices: CsvChoices = new Map(),
): CsvMerge {
  const match = rowMatcher(drafts);
  const next = [...drafts];
  const result: CsvMerge = {
    drafts: next,
    changes: [],
    matched: 0,
    unmatched: [],
    ambiguous: [],
    skipped: [],
    notes: [],
  };
  for (const row of table.rows) {
    const keys = keysOf(row.cells, mapping);
    const found = match(keys);
    if (found.kind === 'none') {
      result.unmatched.push({ line: row.line, key: describeKeys(keys), tracks: [] });
      continue;
    }
    let i: number;
    if (found.kind === 'several') {
      const tracks = found.indexes.map((t) => drafts[t]!.file);
      const problem = { line: row.line, key: describeKeys(keys), tracks };
      const choice = choices.get(row.line);
      const chosen = choice ? found.indexes[tracks.indexOf(choice)] : undefined;
      if (choice === null) result.skipped.push(problem);
      if (chosen === undefined) {
        if (choice !== null) result.ambiguous.push(problem);
        continue;
      }
      i = chosen;
    } else {
      i = found.index;
    }
    result.matched++;
    const file = drafts[i]!.file;
    const applied = applyRow(next[i]!, row.cells, table.header, mapping);
    next[i] = applied.draft;
    for (const change of applied.changes) {
      result.changes.push({ track: i, file, line: row.line, ...change });
    }
    for (const note of applied.notes) result.notes.push({ line: row.line, file, ...note });
  }
  // One UPC written two ways (a spreadsheet dropped the zeros of one) is one album: say so.
  const changedUpc = new Map(
    result.changes.filter((c) => c.column === 'upc').map((c) => [c.track, c]),
  );
  if (changedUpc.size > 0) {
    for (const [i, finding] of upcSpellingFindings(next)) changedUpc.get(i)?.findings.push(finding);
  }
  return result;
}

/** Up to this many unmatched rows get a finding each; more are one finding with a count. */
const UNMATCHED_LISTED = 3;

/** The warnings for rows that matched no track or several, and for cells kept, one line each. */
export function mergeFindings(merge: CsvMerge, name = 'the CSV'): Finding[] {
  const shown = (files: string[]) =>
    files.length > 3
      ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more`
      : files.join(', ');
  return [
    ...merge.ambiguous.map((row) => ({
      level: 'warning' as const,
      message: `${name} row ${row.line} (${row.key}) matches ${row.tracks.length} tracks (${shown(row.tracks)}); nothing from it was applied: add a file column to say which`,
    })),
    // One finding for many unmatched rows: a catalog-wide CSV used for one album is normal.
    ...(merge.unmatched.length > UNMATCHED_LISTED
      ? [
          {
            level: 'warning' as const,
            message: `${merge.unmatched.length} rows of ${name} match no track (${shown(merge.unmatched.map((row) => `row ${row.line} (${row.key})`))}); nothing from them was applied`,
          },
        ]
      : merge.unmatched.map((row) => ({
          level: 'warning' as const,
          message: `${name} row ${row.line} (${row.key}) matches no track; nothing from it was applied`,
        }))),
    ...merge.notes.map((note) => ({
      level: 'warning' as const,
      message: `${name} row ${note.line} (${note.file}): ${note.message}`,
    })),
  ];
}
