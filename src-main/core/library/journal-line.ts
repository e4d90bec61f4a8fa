/**
 * A journal line's rows found in its bytes, neither decoded nor parsed. Opening the library reads
 * the whole journal before its first row, and rows are most of a line: decoding the journal took
 * 0.55 s and parsing every line whole 1.5 s of the 3.3 s that a 170 MB journal (every row of a
 * 100,000-track library edited and saved in the seconds before a quit) kept the first rows from
 * showing, and collecting what the parse made took 0.7 s more. Here a line is cut into its rows'
 * bytes, each named by its id, and the rest of the line, which is parsed; a row is decoded and
 * parsed when it is read (`JournalRow`).
 *
 * Only a line as `patchLibrarySession` writes it is cut (`JSON.stringify` of epoch, seq, then the
 * patch with its rows first, each row with its id first); any other is left to be parsed whole.
 * The bytes looked at (quotes, backslashes, brackets, commas) are ASCII, which UTF-8 never uses
 * inside a character.
 */

/** What a line as written starts with, up to its first row: its epoch and seq, then the patch. */
const lineStart = /^\{"epoch":"(?:[^"\\]|\\.)*","seq":\d+,"patch":\{"rows":\[/;

/** How far into a line its start is looked for: an epoch is a UUID. */
const startBytes = 256;

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;

/**
 * The index of the quote that ends the string whose opening quote is at `at`, or -1 when the line
 * (up to `end`) ends first. A byte at a time: most strings of a row are short (its keys, its
 * values), and a call of `indexOf` each cost more than looking at their bytes.
 */
function stringEnd(bytes: Buffer, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    const c = bytes[i];
    if (c === backslash) i++;
    else if (c === quote) return i;
  }
  return -1;
}

/** The index just past the object that starts at `at`, or -1 when it is not one or is cut. */
function objectEnd(bytes: Buffer, at: number, end: number): number {
  if (bytes[at] !== openBrace) return -1;
  let depth = 0;
  for (let i = at; i < end; i++) {
    const c = bytes[i];
    if (c === quote) {
      i = stringEnd(bytes, i, end);
      if (i < 0) return -1;
    } else if (c === openBrace || c === openBracket) depth++;
    else if (c === closeBrace || c === closeBracket) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

const idKey = Buffer.from('{"id":"');

/** The id a row starts with (`{"id":"…"`), or undefined when it starts otherwise. */
function leadingId(bytes: Buffer, at: number, end: number): string | undefined {
  if (bytes.compare(idKey, 0, idKey.length, at, at + idKey.length) !== 0) return undefined;
  const open = at + idKey.length - 1;
  const close = stringEnd(bytes, open, end);
  if (close < 0) return undefined;
  try {
    const id: unknown = JSON.parse(bytes.toString('utf8', open, close + 1));
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** A journal line cut into its rows (bytes each, with its id) and the rest of it. */
export interface CutLine {
  /** The line with an empty list of rows, to be parsed. */
  rest: string;
  rows: Array<{ id: string; bytes: Buffer }>;
}

/**
 * Cuts the line `bytes[start, end)` as written into its rows (views of `bytes`, not copies) and
 * the rest; undefined for any other line.
 */
export function cutJournalLine(bytes: Buffer, start: number, end: number): CutLine | undefined {
  // Latin-1: one character a byte, so the match's length is a length in bytes.
  const head = lineStart.exec(bytes.toString('latin1', start, Math.min(end, start + startBytes)));
  if (!head) return undefined;
  const rowsAt = start + head[0].length;
  const rows: CutLine['rows'] = [];
  let at = rowsAt;
  if (bytes[at] !== closeBracket) {
    for (;;) {
      const rowEnd = objectEnd(bytes, at, end);
      if (rowEnd < 0) return undefined;
      const id = leadingId(bytes, at, rowEnd);
      if (id === undefined) return undefined;
      rows.push({ id, bytes: bytes.subarray(at, rowEnd) });
      at = rowEnd;
      if (bytes[at] === closeBracket) break;
      if (bytes[at] !== comma) return undefined;
      at++;
    }
  }
  return { rest: bytes.toString('utf8', start, rowsAt) + bytes.toString('utf8', at, end), rows };
}
