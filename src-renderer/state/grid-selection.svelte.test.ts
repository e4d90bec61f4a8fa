import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from './columns.js';
import type { GridState } from './grid-state.svelte.js';

async function sixTracks() {
  const files: Record<string, { title: string; isrc: string; artist: string }> = {};
  for (let n = 1; n <= 6; n++)
    files[`A/0${n}.flac`] = { title: `Song ${n}`, isrc: `GBAYE210000${n}`, artist: 'Lena Park' };
  return libraryWith(files);
}

const col = (grid: GridState, id: string) => grid.visible.findIndex((c) => c.id === id);
const text = (grid: GridState, row: number, id: keyof typeof columns) =>
  columns[id].get(grid.rowAt(row)!.draft);
const titles = (grid: GridState) => grid.viewIds.map((_, r) => text(grid, r, 'title'));

describe('selection of several ranges', () => {
  it('Ctrl/Cmd-click adds a cell; a plain click starts over', async () => {
    const { grid } = await sixTracks();
    const title = col(grid, 'title');
    grid.click({ row: 0, col: title });
    grid.click({ row: 2, col: title }, { ctrlKey: true });
    grid.click({ row: 4, col: title }, { metaKey: true });
    expect(grid.selectedIds).toEqual([0, 2, 4].map((r) => grid.viewIds[r]));
    expect(grid.isSelected({ row: 2, col: title })).toBe(true);
    expect(grid.isSelected({ row: 1, col: title })).toBe(false);
    grid.click({ row: 5, col: title });
    expect(grid.selectedIds).toEqual([grid.viewIds[5]]);
  });

  it('Shift-click extends the last range; Ctrl+Shift-click adds a range from the active cell', async () => {
    const { grid } = await sixTracks();
    const title = col(grid, 'title');
    grid.click({ row: 0, col: title });
    grid.click({ row: 3, col: title }, { ctrlKey: true });
    grid.click({ row: 4, col: title }, { shiftKey: true });
    expect(grid.selectedIds).toEqual([0, 3, 4].map((r) => grid.viewIds[r]));
    grid.click({ row: 0, col: title });
    grid.click({ row: 2, col: title }, { ctrlKey: true, shiftKey: true });
    expect(grid.ranges).toHaveLength(2);
    expect(grid.selectedIds).toEqual([0, 1, 2].map((r) => grid.viewIds[r]));
  });

  it('a click on the row header (Status) selects whole rows, Ctrl adds rows', async () => {
    const { grid } = await sixTracks();
    const status = col(grid, 'status');
    grid.click({ row: 1, col: status });
    grid.click({ row: 4, col: status }, { ctrlKey: true });
    expect(grid.selectedIds).toEqual([1, 4].map((r) => grid.viewIds[r]));
    expect(grid.isSelected({ row: 4, col: col(grid, 'isrc') })).toBe(true);
    expect(grid.isRowSelected(3)).toBe(false);
    grid.key({ key: 'Escape' });
    expect(grid.ranges).toHaveLength(1);
  });

  describe('bulk operations apply to the union of the ranges', () => {
    async function rowsOneThreeFive() {
      const setup = await sixTracks();
      const { grid } = setup;
      const title = col(grid, 'title');
      grid.click({ row: 0, col: title });
      grid.click({ row: 2, col: title }, { ctrlKey: true });
      grid.click({ row: 4, col: title }, { ctrlKey: true });
      return { ...setup, title };
    }

    it('sets a value on the selection, and one Undo takes it back', async () => {
      const { grid, library } = await rowsOneThreeFive();
      expect(grid.setOnSelection('title', 'Same')).toBe(3);
      expect(titles(grid)).toEqual(['Same', 'Song 2', 'Same', 'Song 4', 'Same', 'Song 6']);
      library.undo();
      expect(titles(grid)).toEqual(['Song 1', 'Song 2', 'Song 3', 'Song 4', 'Song 5', 'Song 6']);
    });

    it('pastes one value into every selected cell and copies the selected rows', async () => {
      const { grid } = await rowsOneThreeFive();
      expect(grid.copyText()).toBe('Song 1\nSong 3\nSong 5');
      expect(grid.paste('Pasted')).toBe(3);
      expect(titles(grid)).toEqual(['Pasted', 'Song 2', 'Pasted', 'Song 4', 'Pasted', 'Song 6']);
    });

    it('clears every selected cell (Delete) and nothing else', async () => {
      const { grid } = await rowsOneThreeFive();
      grid.key({ key: 'Delete' });
      expect(titles(grid)).toEqual(['', 'Song 2', '', 'Song 4', '', 'Song 6']);
    });

    it('fills down within each range', async () => {
      const { grid } = await sixTracks();
      const title = col(grid, 'title');
      grid.click({ row: 0, col: title });
      grid.click({ row: 1, col: title }, { shiftKey: true });
      grid.click({ row: 3, col: title }, { ctrlKey: true });
      grid.click({ row: 5, col: title }, { shiftKey: true });
      expect(grid.fillDown()).toBe(3);
      expect(titles(grid)).toEqual(['Song 1', 'Song 1', 'Song 3', 'Song 4', 'Song 4', 'Song 4']);
    });

    it('excludes and removes the tracks of every range', async () => {
      const { grid, library } = await rowsOneThreeFive();
      expect(grid.excludeSelection(true)).toBe(3);
      expect(library.rows.filter((r) => r.excluded)).toHaveLength(3);
      expect(grid.removeSelection()).toBe(3);
      expect(library.rows.map((r) => r.draft.file)).toEqual([
        'A/02.flac',
        'A/04.flac',
        'A/06.flac',
      ]);
    });

    it('replaces in the selected rows only', async () => {
      const { grid } = await rowsOneThreeFive();
      grid.replaceAll({ column: 'title', find: 'Song', replace: 'Track', selectionOnly: true });
      expect(titles(grid)).toEqual(['Track 1', 'Song 2', 'Track 3', 'Song 4', 'Track 5', 'Song 6']);
    });
  });
});
