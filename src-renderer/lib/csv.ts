/**
 * CSV and TSV, as spreadsheets write them (RFC 4180 quoting, CRLF or LF, a BOM from Excel):
 * parsing to rows of text and formatting back. Values stay text; nothing is coerced to numbers.
 */

/** Parses delimited text into rows of cells; `delimiter` is guessed from the first line when omitted. */
export function parseDelimited(input: string, delimiter?: string): string[][] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const sep = delimiter ?? guessDelimiter(text);
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      cell += ch;
      i++;
      continue;
    }
    if (ch === '"' && cell === '') {
      quoted = true;
      i++;
    } else if (ch === sep) {
      row.push(cell);
      cell = '';
      i++;
    } else if (ch === '\r' || ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      cell += ch;
      i++;
    }
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** The delimiter of the first line: tab, semicolon or comma, whichever appears most outside quotes. */
export function guessDelimiter(text: string): string {
  const end = text.search(/\r?\n/);
  const line = (end < 0 ? text : text.slice(0, end)).replace(/"[^"]*"/g, '');
  const counts = ['\t', ';', ','].map((d) => [d, line.split(d).length - 1] as const);
  const best = counts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return best[1] > 0 ? best[0] : ',';
}

/** Formats rows as CSV (comma, CRLF, quotes where needed). */
export function formatCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map((cell) => quote(cell, ',')).join(',')).join('\r\n') + '\r\n';
}

/** Formats rows as TSV for the clipboard (spreadsheets paste it into cells). */
export function formatTsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map((cell) => quote(cell, '\t')).join('\t')).join('\n');
}

/** Parses clipboard text from a spreadsheet (TSV; a trailing newline is not an extra row). */
export function parseTsv(text: string): string[][] {
  const rows = parseDelimited(text.replace(/\r?\n$/, ''), '\t');
  return rows.length === 0 ? [['']] : rows;
}

function quote(cell: string, sep: string): string {
  return cell.includes('"') || cell.includes(sep) || cell.includes('\n') || cell.includes('\r')
    ? `"${cell.replace(/"/g, '""')}"`
    : cell;
}
