/**
 * A metadata sheet as rows of text, the same for CSV and .xlsx: the export writes every column
 * of the vocabulary (so reading it back gives the same drafts), and an .xlsx sheet's typed cells
 * (numbers, dates, booleans) become the text a CSV would hold. Which library reads or writes
 * the .xlsx bytes is the door's business (browser or Node); these rules are shared.
 */
import type { CsvTable } from './csv-text.js';
import { metadataCells, sheetColumnIds } from './metadata-columns.js';
import type { DraftTrack } from './track.js';

/** The header and one row per draft, every column of the vocabulary, cells as full text. */
export function metadataSheetRows(drafts: readonly DraftTrack[]): string[][] {
  return [
    [...sheetColumnIds],
    ...drafts.map((draft) => sheetColumnIds.map((id) => metadataCells[id].get(draft))),
  ];
}

/** An .xlsx cell as write-excel-file takes it. */
export interface TextCell {
  value: string;
  type: StringConstructor;
  format: '@';
}

/**
 * Rows as .xlsx text cells (number format "@", Text): a spreadsheet keeps them as written, so a
 * UPC `0602…`, a catalog number `0042` or a track `01` keeps its leading zeros.
 */
export function textCells(rows: readonly (readonly string[])[]): TextCell[][] {
  return rows.map((row) => row.map((value) => ({ value, type: String, format: '@' as const })));
}

/**
 * One .xlsx cell as text. Numbers arrive as the text the file stores (read them unparsed), so
 * nothing is rounded; a date cell is YYYY-MM-DD (the day it shows, stored as UTC midnight).
 */
export function sheetCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A sheet's rows as a table: the first non-blank row is the header, blank rows are dropped,
 * each row keeps its 1-based row number in the sheet.
 */
export function sheetTable(
  rows: readonly (readonly unknown[])[],
): Pick<CsvTable, 'header' | 'rows'> {
  const lines = rows
    .map((cells, i) => ({ line: i + 1, cells: cells.map(sheetCellText) }))
    .filter((row) => row.cells.some((cell) => cell.trim() !== ''));
  const [header, ...body] = lines;
  return { header: header?.cells ?? [], rows: body };
}

/** Whether a file name is an Excel workbook the import reads (.xlsx; not the old binary .xls). */
export function isWorkbookName(name: string): boolean {
  return /\.xlsx$/i.test(name);
}
