import { describe, expect, it } from 'vitest';

import { formatCsv, parseCsvText, parseTsv } from '../../src-main/core/model/csv-text.js';
import { CsvImport, exportCsv, guessTarget } from './csv-import.svelte.js';
import { libraryWith } from './fake-library.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

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

  it('exports the visible columns with ids as headers, lyrics in full', async () => {
    const { grid } = await libraryWith({ 'A/01.flac': { title: 'One, "quoted"' } });
    const rows = grid.viewIds.map((id) => grid.library.row(id)!);
    const text = exportCsv(rows, grid.visible);
    expect(text.split('\r\n')[0]).toMatch(/^file,outer_id,title,/);
    expect(text).toContain('A/01.flac,01,"One, ""quoted"""');
  });

  it('a row naming one file changes only that file, even when another track shares its ISRC', async () => {
    const { library } = await libraryWith({
      'CD1/06 Foghorn Blues.mp3': { title: 'Foghorn Blues', isrc: 'GBAYE2100006' },
      'CD2/04 Ebb.m4a': { title: 'Ebb', isrc: 'GBAYE2100006' },
    });
    const csv = new CsvImport(
      library,
      utf8(
        'file,isrc,title\r\nCD1/06 Foghorn Blues.mp3,GBAYE2100006,Foghorn Blues (Live)\r\n,GBAYE2100006,Both?\r\n',
      ),
    );
    const { changes, matched, ambiguous } = csv.preview;
    expect(matched).toBe(1);
    expect(changes.map((c) => `${c.file}:${c.column}=${c.after}`)).toEqual([
      'CD1/06 Foghorn Blues.mp3:title=Foghorn Blues (Live)',
    ]);
    expect(ambiguous).toEqual([
      {
        line: 3,
        key: 'ISRC GBAYE2100006',
        tracks: ['CD1/06 Foghorn Blues.mp3', 'CD2/04 Ebb.m4a'],
      },
    ]);
    expect(csv.apply()).toBe(1);
    expect(library.rows.map((row) => row.draft.title?.value)).toEqual([
      'Foghorn Blues (Live)',
      'Ebb',
    ]);
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
    const text = exportCsv(rows, grid.visible);
    expect(text).toContain(`"'=HYPERLINK(""x"")"`);
    const csv = new CsvImport(library, utf8(text));
    expect(csv.body[0]).toContain('=HYPERLINK("x")');
    expect(csv.preview.changes).toEqual([]);
  });
});
