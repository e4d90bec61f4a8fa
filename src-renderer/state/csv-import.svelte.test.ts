import { describe, expect, it } from 'vitest';

import { formatCsv, parseDelimited, parseTsv } from '../lib/csv.js';
import { CsvImport, exportCsv, guessTarget } from './csv-import.svelte.js';
import { libraryWith } from './fake-library.js';

describe('CSV', () => {
  it('parses quotes, embedded newlines, a BOM and semicolons; formats back', () => {
    const text = '\ufeffa;b\r\n"x;1";"he said ""hi"""\r\n"multi\nline";\r\n';
    const rows = parseDelimited(text);
    expect(rows).toEqual([
      ['a', 'b'],
      ['x;1', 'he said "hi"'],
      ['multi\nline', ''],
    ]);
    expect(parseDelimited(formatCsv(rows), ',')).toEqual(rows);
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

  it('matches by ISRC, then outer_id, then path; empty cells never erase; ids stay text', async () => {
    const { library } = await libraryWith({
      'A/01.flac': { title: 'One', isrc: 'GBAYE2100001' },
      'A/02.flac': { title: 'Two' },
      'A/03.flac': { title: 'Three' },
    });
    const csv = new CsvImport(
      library,
      [
        'isrc,outer_id,file,title,upc',
        'GB-AYE-21-00001,,,Uno,',
        ',02,,Dos,0012345678905',
        ',,A/03.flac,,',
        ',,A/none.flac,Nada,',
      ].join('\n'),
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
});
