/**
 * CSV as spreadsheets write it, read from bytes: UTF-8 (with or without BOM), UTF-16 LE/BE,
 * Windows-1252; comma, semicolon or tab; RFC 4180 quoting (parsed by csv-parse). And CSV/TSV
 * written back, formula-safe for spreadsheets. Cells stay text; nothing is coerced to numbers.
 */
import { CsvError, parse } from 'csv-parse/browser/esm/sync';

import { CourierError, UsageError } from '../errors.js';

/** The encodings a CSV can be read in; `auto` detects them from the bytes. */
export const csvEncodings = ['auto', 'utf-8', 'utf-16le', 'utf-16be', 'windows-1252'] as const;

/** One of the encodings above. */
export type CsvEncoding = (typeof csvEncodings)[number];

/** The delimiters a CSV may use. */
export type CsvDelimiter = ',' | ';' | '\t';

/** A parsed CSV: the header, the rows below it, and how the file was read. */
export interface CsvTable {
  header: string[];
  /** Rows below the header, blank rows dropped; `line` is the 1-based row number in the file. */
  rows: { line: number; cells: string[] }[];
  encoding: Exclude<CsvEncoding, 'auto'>;
  delimiter: CsvDelimiter;
}

/** Options of reading a CSV. */
export interface ReadCsvOptions {
  /** The encoding the caller declares; detected when `auto` or absent. */
  encoding?: CsvEncoding;
  /** The file's name, for messages. */
  name?: string;
}

// A leading ' makes a spreadsheet show a cell as text instead of running it as a formula.
const formulaStart = /^'*[=+\-@\t\r]/;
// C0 controls other than tab, LF, CR, and the C1 bytes Windows-1252 leaves undefined.
function hasBinaryChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return true;
    if (c === 0x81 || c === 0x8d || c === 0x8f || c === 0x90 || c === 0x9d) return true;
  }
  return false;
}

function binary(name: string): CourierError {
  return new CourierError(
    'csv-unreadable',
    `${name} is not a text CSV (it holds binary data); save the sheet as "CSV UTF-8" and try again`,
  );
}

// Windows-1252's 0x80-0x9F (WHATWG table; the five undefined bytes stay C1 controls, refused
// as binary). Node 20's TextDecoder('windows-1252') decodes these as Latin-1, so not used.
const cp1252High =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    text += String.fromCharCode(
      ...Array.from(chunk, (b) => (b >= 0x80 && b < 0xa0 ? cp1252High.charCodeAt(b - 0x80) : b)),
    );
  }
  return text;
}

function decode(bytes: Uint8Array, encoding: Exclude<CsvEncoding, 'auto'>, name: string): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CourierError(
      'csv-unreadable',
      `${name} is not valid ${encoding} text; save it as "CSV UTF-8" or name its encoding (utf-8, utf-16le, utf-16be, windows-1252)`,
    );
  }
}

/** What NUL bytes say: UTF-16 without a BOM puts one beside each ASCII character, on one side. */
function utf16ByNuls(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | 'none' | 'binary' {
  let even = 0;
  let odd = 0;
  const end = Math.min(bytes.length, 65536);
  for (let i = 0; i < end; i++) {
    if (bytes[i] !== 0) continue;
    if (i % 2 === 0) even++;
    else odd++;
  }
  if (even === 0 && odd === 0) return 'none';
  // All on one side: UTF-16 (text in other scripts has few NULs). Decoding checks the rest.
  if (even === 0) return 'utf-16le';
  if (odd === 0) return 'utf-16be';
  return 'binary';
}

/**
 * The text of CSV bytes, without BOM, and the encoding it was read in. Detects a BOM, BOM-less
 * UTF-16 by its NUL bytes, and Windows-1252 when the bytes are not UTF-8; never yields U+FFFD
 * for bytes it could not read. Throws a CourierError for binary or undecodable bytes.
 */
export function decodeCsvBytes(
  bytes: Uint8Array,
  options: ReadCsvOptions = {},
): { text: string; encoding: Exclude<CsvEncoding, 'auto'> } {
  const name = options.name ?? 'the file';
  const declared = options.encoding ?? 'auto';
  const bom: [number[], Exclude<CsvEncoding, 'auto'>][] = [
    [[0xef, 0xbb, 0xbf], 'utf-8'],
    [[0xff, 0xfe], 'utf-16le'],
    [[0xfe, 0xff], 'utf-16be'],
  ];
  let encoding: Exclude<CsvEncoding, 'auto'> | undefined;
  let start = 0;
  for (const [mark, enc] of bom) {
    if (mark.every((b, i) => bytes[i] === b) && (declared === 'auto' || declared === enc)) {
      encoding = enc;
      start = mark.length;
      break;
    }
  }
  if (!encoding && declared !== 'auto') encoding = declared;
  if (!encoding) {
    const byNuls = utf16ByNuls(bytes);
    if (byNuls === 'binary') throw binary(name);
    if (byNuls !== 'none') encoding = byNuls;
  }
  const body = bytes.subarray(start);
  let text: string;
  if (encoding) text = decode(body, encoding, name);
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
      encoding = 'utf-8';
    } catch {
      // Not UTF-8: Excel's "CSV" on Windows writes the ANSI code page, Windows-1252 in the West.
      text = decodeWindows1252(body);
      encoding = 'windows-1252';
    }
  }
  if (hasBinaryChar(text)) throw binary(name);
  return { text, encoding };
}

/** The delimiter of the header line: comma, semicolon or tab, whichever appears most outside quotes. */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts: Record<CsvDelimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch]++;
  }
  const best = (['\t', ';', ','] as const).reduce((a, b) => (counts[b] > counts[a] ? b : a));
  return counts[best] > 0 ? best : ',';
}

/** A cell as written: the ' a formula-safe export put before a formula-like value is taken off. */
function unguard(cell: string): string {
  return cell.startsWith("'") && formulaStart.test(cell) ? cell.slice(1) : cell;
}

/** Parses delimited text into rows of cells (`delimiter` detected when omitted). */
export function parseCsvText(
  text: string,
  delimiter?: CsvDelimiter,
  name = 'the file',
): string[][] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const rows = parse(body, {
      delimiter: delimiter ?? detectDelimiter(body),
      relax_column_count: true,
      // A stray quote inside an unquoted cell (5" vinyl) is text, as spreadsheets read it.
      relax_quotes: true,
    }) as string[][];
    return rows.map((row) => row.map(unguard));
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = (error as CsvError & { lines?: number }).lines;
    const what =
      error.code === 'CSV_QUOTE_NOT_CLOSED'
        ? `a quoted cell opened before line ${line} is never closed`
        : error.message.replace(/^[^:]*:\s*/, '');
    throw new UsageError(
      `${name} cannot be read as CSV: ${what}; check its quotes or save it again from the spreadsheet`,
    );
  }
}

/** Reads CSV bytes into a header and rows: encoding and delimiter detected, blank rows dropped. */
export function readCsv(bytes: Uint8Array, options: ReadCsvOptions = {}): CsvTable {
  const { text, encoding } = decodeCsvBytes(bytes, options);
  const delimiter = detectDelimiter(text);
  const parsed = parseCsvText(text, delimiter, options.name);
  const lines = parsed
    .map((cells, i) => ({ line: i + 1, cells }))
    .filter((row) => row.cells.some((cell) => cell.trim() !== ''));
  const [header, ...rows] = lines;
  return { header: header?.cells ?? [], rows, encoding, delimiter };
}

/** A cell spreadsheets would run as a formula gets a leading ' (shown as text, kept on import). */
export function formulaSafe(cell: string): string {
  return formulaStart.test(cell) ? `'${cell}` : cell;
}

function quote(cell: string, sep: string): string {
  return cell.includes('"') || cell.includes(sep) || cell.includes('\n') || cell.includes('\r')
    ? `"${cell.replace(/"/g, '""')}"`
    : cell;
}

/** Formats rows as CSV (comma, CRLF, quotes where needed), formula-safe for spreadsheets. */
export function formatCsv(rows: readonly (readonly string[])[]): string {
  return (
    rows.map((row) => row.map((cell) => quote(formulaSafe(cell), ',')).join(',')).join('\r\n') +
    '\r\n'
  );
}

/** Formats rows as TSV for the clipboard (spreadsheets paste it into cells). */
export function formatTsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map((cell) => quote(cell, '\t')).join('\t')).join('\n');
}

/** Parses clipboard text from a spreadsheet (TSV; a trailing newline is not an extra row). */
export function parseTsv(text: string): string[][] {
  const body = text.replace(/\r?\n$/, '');
  if (body === '') return [['']];
  try {
    const rows = parse(body, {
      delimiter: '\t',
      relax_column_count: true,
      relax_quotes: true,
    }) as string[][];
    return rows.length === 0 ? [['']] : rows;
  } catch {
    // Clipboard text that is not well-formed TSV is pasted line by line, as typed.
    return body.split(/\r?\n/).map((line) => line.split('\t'));
  }
}
