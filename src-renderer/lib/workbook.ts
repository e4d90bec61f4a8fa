/**
 * .xlsx bytes in the renderer, through the maintained libraries' browser builds: the first
 * sheet read as rows (numbers unparsed, so no digit is lost), and rows written as text cells.
 * What the cells mean is core's (`metadata-sheet.ts`). The libraries load when a workbook is
 * first read or written, so the app's first paint doesn't wait for them.
 */
import { CourierError } from '../../src-main/core/errors.js';
import { sheetTable, textCells } from '../../src-main/core/model/metadata-sheet.js';

/** The first sheet of a workbook as a header and rows of text; a one-line error when unreadable. */
export async function readWorkbook(bytes: Uint8Array, name: string) {
  try {
    const buffer = bytes.slice().buffer;
    const { readSheet } = await import('read-excel-file/browser');
    return sheetTable(await readSheet(buffer, { parseNumber: (text) => text, trim: false }));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new CourierError(
      'csv-unreadable',
      `${name} cannot be read as an .xlsx workbook (${why}); save it again from the spreadsheet as .xlsx or CSV UTF-8`,
    );
  }
}

/** Rows as an .xlsx workbook of one sheet, every cell text (leading zeros kept). */
export async function workbookBlob(rows: readonly (readonly string[])[]): Promise<Blob> {
  const { default: writeExcelFile } = await import('write-excel-file/browser');
  return writeExcelFile(textCells(rows), { sheet: 'Tracks' }).toBlob();
}
