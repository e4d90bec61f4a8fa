import { readSheet } from 'read-excel-file/node';
import { describe, expect, it } from 'vitest';
import writeExcelFile from 'write-excel-file/node';

import type { CsvTable } from '../../../src-main/core/model/csv-text.js';
import { formatCsv, readCsv } from '../../../src-main/core/model/csv-text.js';
import { draftToTrack } from '../../../src-main/core/model/ingestion-body.js';
import {
  metadataCells,
  metadataColumnIds,
  sheetColumnIds,
} from '../../../src-main/core/model/metadata-columns.js';
import {
  type CsvMapping,
  guessMapping,
  mergeCsv,
} from '../../../src-main/core/model/metadata-csv.js';
import {
  metadataSheetRows,
  sheetCellText,
  sheetTable,
  textCells,
} from '../../../src-main/core/model/metadata-sheet.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { draft, fromTag } from './helpers.js';

/** A draft with every field the sheet carries, leading zeros and formula-like text included. */
const full = draft('Night Shift/CD1/01 Été indien.flac', {
  outerId: fromTag('0042-01'),
  title: fromTag('=Été indien, "live"'),
  isrc: fromTag('FRZ039800212'),
  releaseDate: fromTag('1975-06-01'),
  lyrics: fromTag('Tu sais, je n’ai jamais été aussi heureux\nque ce matin-là'),
  artists: fromTag([
    { name: 'Joe Dassin', role: 'Main', id: 'ART-0007' },
    { name: 'Claude Lemesle', role: 'Album Artist' },
    { name: 'Dalida', role: 'Featured' },
    { name: 'Toto Cutugno', role: 'Composer' },
    { name: 'Pierre Delanoë', role: 'Lyricist' },
    { name: 'Kid Loco', role: 'Remixer' },
    { name: 'Jacques Plait', role: 'Producer' },
    { name: 'Ann: Other', role: 'Mix Engineer' },
  ]),
  customerTags: fromTag([
    { category: 'Mood', tag: 'Nostalgic' },
    { category: 'Genre', tag: 'Chanson' },
  ]),
  references: fromTag([{ source: 'musicbrainz_recordingid', id: 'a1b2:c3' }]),
  album: {
    title: fromTag('Le Jardin du Luxembourg'),
    upc: fromTag('0036000291452'),
    releaseDate: fromTag('1976-01-10'),
    type: fromTag('Official'),
    trackPosition: fromTag('01'),
    diskNumber: fromTag('1'),
    label: fromTag('CBS Disques'),
    catalogNumber: fromTag('0042'),
    references: fromTag([{ source: 'discogs', id: '123' }]),
  },
});

/** The draft's values without where they came from. */
function values(d: DraftTrack): unknown {
  return JSON.parse(
    JSON.stringify(d, (key, value: unknown) => (key === 'source' ? undefined : value)),
  );
}

/** The file of `full` with nothing else, as a library would hold it before an import. */
const bare = (): DraftTrack => ({ file: full.file, primaryMedia: full.primaryMedia! });

function mergeTable(drafts: DraftTrack[], table: Pick<CsvTable, 'header' | 'rows'>) {
  return mergeCsv(drafts, table, guessMapping(table.header) as CsvMapping);
}

describe('the sheet vocabulary', () => {
  it('has one column set: the grid shows a subset of it, every id reads and writes a cell', () => {
    expect(
      metadataColumnIds.every((id) => (sheetColumnIds as readonly string[]).includes(id)),
    ).toBe(true);
    expect(guessMapping([...sheetColumnIds])).toEqual([...sheetColumnIds]);
    for (const id of sheetColumnIds) expect(metadataCells[id].get(full)).not.toBe('');
  });
});

describe('export, then import', () => {
  const exported = metadataSheetRows([full]);

  it('gives the same draft through CSV: roles and ids, label, catalog number, leading zeros', () => {
    const table = readCsv(new TextEncoder().encode(formatCsv(exported)));
    const merge = mergeTable([bare()], table);
    expect(merge.matched).toBe(1);
    expect(values(merge.drafts[0]!)).toEqual(values(full));
    expect(draftToTrack(merge.drafts[0]!)).toEqual(draftToTrack(full));
  });

  it('changes nothing when read back over the library it came from', () => {
    const table = readCsv(new TextEncoder().encode(formatCsv(exported)));
    const merge = mergeTable([full], table);
    expect(merge.changes).toEqual([]);
    expect(merge.notes).toEqual([]);
  });

  it('gives the same draft through .xlsx: codes are text cells, read back with every digit', async () => {
    const bytes = await writeExcelFile(textCells(exported)).toBuffer();
    const rows = await readSheet(bytes, { parseNumber: (text) => text, trim: false });
    const table = sheetTable(rows);
    expect(table.rows[0]!.cells[sheetColumnIds.indexOf('catalog_number')]).toBe('0042');
    const merge = mergeTable([bare()], table);
    expect(values(merge.drafts[0]!)).toEqual(values(full));
    expect(mergeTable([full], table).changes).toEqual([]);
  });

  it('reads what a spreadsheet typed: numbers unrounded, dates as YYYY-MM-DD', async () => {
    const bytes = await writeExcelFile([
      [{ value: 'upc' }, { value: 'release_date' }, { value: 'track' }],
      [
        { value: 5099749189126, type: Number },
        { value: new Date(Date.UTC(1975, 5, 1)), type: Date, format: 'dd/mm/yyyy' },
        { value: 1, type: Number },
      ],
    ]).toBuffer();
    const rows = await readSheet(bytes, { parseNumber: (text) => text, trim: false });
    expect(sheetTable(rows).rows[0]!.cells).toEqual(['5099749189126', '1975-06-01', '1']);
    expect(sheetCellText(5099749189126)).toBe('5099749189126');
    expect(sheetCellText(true)).toBe('TRUE');
    expect(sheetCellText(null)).toBe('');
  });
});
