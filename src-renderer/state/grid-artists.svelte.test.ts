import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { CsvImport, exportCsv, exportXlsx } from './csv-import.svelte.js';

/** A Blob's bytes (jsdom's Blob has no arrayBuffer()). */
function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error ?? new Error('cannot read the blob'));
    reader.readAsArrayBuffer(blob);
  });
}

describe('the Artists column shows every role', () => {
  async function withFeatured() {
    const setup = await libraryWith({
      'A/01.flac': { title: 'One', artist: 'Aurora Vale' },
      'A/02.flac': { title: 'Two', artist: 'Aurora Vale' },
    });
    const { grid } = setup;
    grid.selectRows(0, 0);
    // What the inspector's "add artist" does, then its role picker.
    grid.editSelection('Add artist', (d) => ({
      ...d,
      artists: {
        value: [...(d.artists?.value ?? []), { name: 'Nils Berg', role: 'Featured' }],
        source: { kind: 'manual' },
      },
    }));
    return setup;
  }

  it('shows a featured artist added in the inspector, and is filtered by it', async () => {
    const { grid } = await withFeatured();
    const artists = grid.visible.find((c) => c.id === 'artists')!;
    expect(grid.cellText(grid.rowAt(0)!, artists)).toBe('Aurora Vale · feat. Nils Berg');
    expect(grid.cellText(grid.rowAt(1)!, artists)).toBe('Aurora Vale');
    grid.filterText = 'nils';
    expect(grid.viewIds).toEqual(['id:A/01.flac']);
  });

  it('edits and fills roles like any cell text', async () => {
    const { grid, library } = await withFeatured();
    const col = grid.visible.findIndex((c) => c.id === 'artists');
    grid.select({ row: 0, col });
    grid.select({ row: 1, col }, true);
    grid.fillDown();
    expect(library.row('id:A/02.flac')!.draft.artists!.value).toEqual([
      { name: 'Aurora Vale', role: 'Main' },
      { name: 'Nils Berg', role: 'Featured' },
    ]);
    grid.select({ row: 1, col });
    grid.startEdit('Aurora Vale · prod. Ida Lund');
    grid.commitEdit();
    expect(library.row('id:A/02.flac')!.draft.artists!.value).toEqual([
      { name: 'Aurora Vale', role: 'Main' },
      { name: 'Ida Lund', role: 'Producer' },
    ]);
  });

  it('exports the featured artist in its own column, in CSV and xlsx', async () => {
    const { library } = await withFeatured();
    const csv = exportCsv(library.rows).slice(1).split('\r\n');
    const header = csv[0]!.split(',');
    const line = csv[1]!.split(',');
    expect(line[header.indexOf('artists')]).toBe('Aurora Vale');
    expect(line[header.indexOf('featured')]).toBe('Nils Berg');

    const book = await CsvImport.open(
      library,
      await bytesOf(await exportXlsx(library.rows)),
      'x.xlsx',
    );
    const featured = book.headers.indexOf('featured');
    expect(featured).toBeGreaterThan(0);
    expect(book.body.map((row) => row[featured])).toEqual(['Nils Berg', '']);
    // Read back over the library it came from: nothing changes.
    expect(book.preview.changes).toEqual([]);
  });
});
