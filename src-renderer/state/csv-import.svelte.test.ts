import { describe, expect, it } from 'vitest';
import writeExcelFile from 'write-excel-file/universal';

import { formatCsv, parseCsvText, parseTsv } from '../../src-main/core/model/csv-text.js';
import { sheetColumnIds } from '../../src-main/core/model/metadata-columns.js';
import { libraryWith } from '../../test/fakes/fake-library.js';
import { CsvImport, exportCsv, exportXlsx, guessTarget } from './csv-import.svelte.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** A Blob's bytes (jsdom's Blob has no arrayBuffer()). */
function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error ?? new Error('cannot read the blob'));
    reader.readAsArrayBuffer(blob);
  });
}

describe('CSV', () => {
  it('parses quotes, embedded newlines, a BOM and semicolons; formats back', () => {
    const text = '\ufeffa;b\r\n"x;1";"he said ""hi"""\r\n"multi\nline";\r\n';
    const rows = parseCsvText(text);
    expect(rows).toEqual([
      ['a', 'b'],
      ['x;1', 'he said "hi"'],
      ['multi\nline', ''],
    ]);
    expect(parseCsvText(formatCsv(rows), ',')).toEqual(rows);
    expect(parseTsv('a\tb\n')).toEqual([['a', 'b']]);
  });

  it('guesses the target column from common headers', () => {
    expect(['ISRC', 'Track Title', 'EAN', 'Disc No', 'whatever'].map(guessTarget)).toEqual([
      'isrc',
      'title',
      'upc',
      'disk',
      '',
    ]);
  });

  it('matches by file, then outer_id, then ISRC; empty cells never erase; ids stay text', async () => {
    const { library } = await libraryWith({
      'A/01.flac': { title: 'One', isrc: 'GBAYE2100001' },
      'A/02.flac': { title: 'Two' },
      'A/03.flac': { title: 'Three' },
    });
    const csv = new CsvImport(
      library,
      utf8(
        [
          'isrc,outer_id,file,title,upc',
          'GB-AYE-21-00001,,,Uno,',
          ',02,,Dos,0012345678905',
          ',,A/03.flac,,',
          ',,A/none.flac,Nada,',
        ].join('\n'),
      ),
    );
    const { changes, matched, unmatched } = csv.preview;
    expect(matched).toBe(3);
    expect(unmatched).toEqual([5]);
    expect(changes.map((c) => `${c.file}:${c.column}=${c.after}`)).toEqual([
      'A/01.flac:title=Uno',
      'A/02.flac:title=Dos',
      'A/02.flac:upc=0012345678905',
    ]);
    expect(csv.apply()).toBe(2);
    const two = library.rows[1]!.draft;
    expect(two.album?.upc).toEqual({
      value: '0012345678905',
      source: { kind: 'csv', column: 'upc' },
    });
    expect(library.rows[2]!.draft.title?.value).toBe('Three');
    library.undo();
    expect(library.rows[1]!.draft.title?.value).toBe('Two');
  });

  it('exports every column of the vocabulary with ids as headers, after a BOM for Excel', async () => {
    const { grid } = await libraryWith({ 'A/01.flac': { title: 'One, "quoted"' } });
    // A hidden column is exported all the same: the sheet carries every field.
    grid.toggleColumn('title');
    const rows = grid.viewIds.map((id) => grid.library.row(id)!);
    const text = exportCsv(rows);
    expect(text.startsWith('\ufeff')).toBe(true);
    expect(text.slice(1).split('\r\n')[0]).toBe(sheetColumnIds.join(','));
    expect(text).toContain('A/01.flac,01,"One, ""quoted"""');
  });

  describe('two tracks sharing an ISRC (issue #18: Foghorn Blues and Ebb)', () => {
    const shared = () =>
      libraryWith({
        'Tides/CD1/06 Foghorn Blues.mp3': {
          title: 'Foghorn Blues',
          isrc: 'GBAYE2100006',
          track: '6',
          disk: '1',
        },
        'Tides/CD2/04 Ebb.m4a': { title: 'Ebb', isrc: 'GBAYE2100006', track: '4', disk: '2' },
      });
    const sheet =
      'file,isrc,title,track,disk\r\n' +
      'CD1/06 Foghorn Blues.mp3,GBAYE2100006,Foghorn Blues (Live),6,1\r\n' +
      ',GBAYE2100006,Which one?,9,3\r\n';
    const titles = (library: { rows: { draft: { title?: { value: string } } }[] }) =>
      library.rows.map((row) => row.draft.title?.value);

    it('a row naming one by its path changes only that one; the ISRC-only row changes nothing', async () => {
      const { library } = await shared();
      const csv = new CsvImport(library, utf8(sheet));
      const { changes, matched, ambiguous, unmatched } = csv.preview;
      expect([matched, ambiguous.length, unmatched.length]).toEqual([1, 1, 0]);
      expect(changes.map((c) => `${c.file}:${c.column}=${c.after}`)).toEqual([
        'Tides/CD1/06 Foghorn Blues.mp3:title=Foghorn Blues (Live)',
      ]);
      expect(ambiguous).toEqual([
        {
          line: 3,
          key: 'ISRC GBAYE2100006',
          tracks: ['Tides/CD1/06 Foghorn Blues.mp3', 'Tides/CD2/04 Ebb.m4a'],
        },
      ]);
      expect(csv.apply()).toBe(1);
      expect(titles(library)).toEqual(['Foghorn Blues (Live)', 'Ebb']);
      const ebb = library.rows[1]!.draft.album!;
      expect([ebb.trackPosition?.value, ebb.diskNumber?.value]).toEqual(['4', '2']);
    });

    it('applies the ambiguous row only once a track is picked for it, or nothing when skipped', async () => {
      const { library } = await shared();
      const csv = new CsvImport(library, utf8(sheet));
      csv.choose(3, 'Tides/CD2/04 Ebb.m4a');
      expect([csv.preview.matched, csv.preview.ambiguous.length]).toEqual([2, 0]);
      expect(csv.preview.changes.filter((c) => c.line === 3).map((c) => c.column)).toEqual([
        'title',
        'track',
        'disk',
      ]);
      csv.choose(3, null);
      const { matched, ambiguous, skipped } = csv.preview;
      expect([matched, ambiguous.length, skipped.length]).toEqual([1, 0, 1]);
      expect(csv.apply()).toBe(1);
      expect(titles(library)).toEqual(['Foghorn Blues (Live)', 'Ebb']);
    });
  });

  it('flags an 11-digit UPC in the preview; keeps a 12-digit one that is the EAN without its 0', async () => {
    const { library } = await libraryWith({
      'A/01.flac': { title: 'One', album: 'Tides' },
      'A/02.flac': { title: 'Two', album: 'Tides', upc: '0036000291452' },
    });
    const csv = new CsvImport(
      library,
      utf8('file,upc\r\nA/01.flac,36000291452\r\nA/02.flac,036000291452\r\n'),
    );
    const [change, ...rest] = csv.preview.changes;
    expect(rest).toEqual([]);
    expect(change!.file).toBe('A/01.flac');
    expect(change!.findings[0]).toMatchObject({
      level: 'error',
      field: 'album.upc',
      message: expect.stringContaining('dropped its leading zero; the UPC is 036000291452'),
    });
    expect(csv.preview.invalid).toBe(1);
    expect(csv.preview.notes.map((n) => [n.file, n.message])).toEqual([
      [
        'A/02.flac',
        "UPC '036000291452' is '0036000291452' without its leading zeros (a spreadsheet drops them); '0036000291452' is kept",
      ],
    ]);
  });

  it('imports an .xlsx workbook with the same join, preview and validation', async () => {
    const { library, grid } = await libraryWith({
      'CD1/06 Foghorn Blues.mp3': {
        title: 'Foghorn Blues',
        isrc: 'GBAYE2100006',
        upc: '0036000291452',
      },
      'CD2/04 Ebb.m4a': { title: 'Ebb', isrc: 'GBAYE2100006', upc: '0036000291452' },
    });
    const rows = grid.viewIds.map((id) => library.row(id)!);
    const exported = await bytesOf(await exportXlsx(rows));
    // Read back over the library it came from: leading zeros kept, nothing changes.
    const same = await CsvImport.open(library, exported, 'tracks.xlsx');
    expect(same.headers).toEqual([...sheetColumnIds]);
    expect([same.preview.matched, same.preview.changes, same.preview.notes]).toEqual([2, [], []]);

    // A label's own workbook: the UPC typed as a number (Excel drops its leading zeros).
    const typed = await writeExcelFile([
      [{ value: 'File name' }, { value: 'ISRC' }, { value: 'Title' }, { value: 'UPC' }],
      [{ value: '' }, { value: 'GBAYE2100006' }, { value: 'Which one?' }, null],
      [{ value: '04 Ebb.m4a' }, { value: '' }, { value: 'Ebb (Edit)' }, { value: 36000291452 }],
      [{ value: 'Nope.m4a' }, { value: '' }, { value: 'Nope' }, null],
    ]).toBlob();
    const xlsx = await CsvImport.open(library, await bytesOf(typed), 'label.xlsx');
    const { matched, ambiguous, unmatched, changes, notes } = xlsx.preview;
    expect([matched, ambiguous.map((r) => r.line), unmatched]).toEqual([1, [2], [4]]);
    expect(changes.map((c) => `${c.file}:${c.column}=${c.after}`)).toEqual([
      'CD2/04 Ebb.m4a:title=Ebb (Edit)',
    ]);
    expect(notes.map((n) => n.message)).toEqual([
      "UPC '36000291452' is '0036000291452' without its leading zeros (a spreadsheet drops them); '0036000291452' is kept",
    ]);
  });

  it('says a file named .xlsx that is not a workbook cannot be read, in one line', async () => {
    const { library } = await libraryWith({ 'A/01.flac': { title: 'One' } });
    await expect(CsvImport.open(library, utf8('title\nOne\n'), 'tracks.xlsx')).rejects.toThrow(
      /^tracks\.xlsx cannot be read as an \.xlsx workbook \(.+\); save it again/,
    );
  });

  it('reads a semicolon CSV saved in Windows-1252 by a European spreadsheet', async () => {
    const { library } = await libraryWith({ 'A/01.flac': { title: 'One' } });
    const bytes = Uint8Array.from(
      [...'Datei;Titel;Track Title\r\nA/01.flac;;\xc9t\xe9 indien\r\n'].map((c) => c.charCodeAt(0)),
    );
    const csv = new CsvImport(library, bytes, 'export.csv');
    expect(csv.headers).toEqual(['Datei', 'Titel', 'Track Title']);
    csv.mapping = ['file', '', 'title'];
    expect(csv.preview.changes.map((c) => c.after)).toEqual(['Été indien']);
  });

  it('exports formula-like cells with a leading quote, read back as they were', async () => {
    const { library, grid } = await libraryWith({ 'A/01.flac': { title: '=HYPERLINK("x")' } });
    const rows = grid.viewIds.map((id) => grid.library.row(id)!);
    const text = exportCsv(rows);
    expect(text).toContain(`"'=HYPERLINK(""x"")"`);
    const csv = new CsvImport(library, utf8(text));
    expect(csv.body[0]).toContain('=HYPERLINK("x")');
    expect(csv.preview.changes).toEqual([]);
  });
});
