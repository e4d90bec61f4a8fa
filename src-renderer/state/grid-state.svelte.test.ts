import { describe, expect, it } from 'vitest';

import { type FakeTags, libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from './columns.js';

const album = (n: number) => ({
  title: `Song ${n}`,
  isrc: `GBAYE21000${String(n).padStart(2, '0')}`,
  artist: 'Lena Park',
  album: 'Night Shift',
  upc: '5099902988023',
  track: String(n),
  date: '2021-05-14',
});

async function fourTracks() {
  return libraryWith({
    'Night Shift/01.mp3': album(1),
    'Night Shift/02.mp3': album(2),
    'Night Shift/03.mp3': album(3),
    'Night Shift/04.mp3': album(4),
  });
}

const cell = (grid: Awaited<ReturnType<typeof fourTracks>>['grid'], row: number, id: string) =>
  columns[id as keyof typeof columns].get(grid.rowAt(row)!.draft);

const col = (grid: Awaited<ReturnType<typeof fourTracks>>['grid'], id: string) =>
  grid.visible.findIndex((c) => c.id === id);

describe('grid editing rules', () => {
  describe('inline editing', () => {
    it('commits with Enter and moves down, cancels with Escape', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'title') });
      expect(grid.key({ key: 'F2' })).toBe(true);
      grid.editing!.text = 'Intro';
      grid.key({ key: 'Enter' });
      expect(cell(grid, 0, 'title')).toBe('Intro');
      expect(grid.active.row).toBe(1);
      grid.key({ key: 'x' });
      expect(grid.editing?.text).toBe('x');
      grid.key({ key: 'Escape' });
      expect(grid.editing).toBeNull();
      expect(cell(grid, 1, 'title')).toBe('Song 2');
    });

    it('Tab commits and moves right; arrows and Shift extend the range', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'title') });
      grid.startEdit('New');
      grid.key({ key: 'Tab' });
      expect(cell(grid, 0, 'title')).toBe('New');
      expect(grid.visible[grid.active.col]!.id).toBe('artists');
      grid.key({ key: 'ArrowDown', shiftKey: true });
      grid.key({ key: 'ArrowDown', shiftKey: true });
      expect(grid.selectedIds).toHaveLength(3);
    });

    it('lets Tab leave the grid past the last column', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: grid.visible.length - 1 });
      expect(grid.key({ key: 'Tab' })).toBe(false);
      expect(grid.key({ key: 'Tab', shiftKey: true })).toBe(true);
    });

    it('refuses to edit read-only columns', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'file') });
      expect(grid.startEdit()).toBe(false);
    });

    it('records the manual source and keeps the original value', async () => {
      const { grid, library } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'title') });
      grid.startEdit('Intro');
      grid.commitEdit();
      const row = grid.rowAt(0)!;
      expect(row.draft.title?.source).toEqual({ kind: 'manual' });
      expect(row.original?.title?.value).toBe('Song 1');
      expect(library.undoLabel).toBe('Edit Title');
    });
  });

  describe('validation', () => {
    it('shows an error on the cell and clears it once fixed', async () => {
      const { grid } = await fourTracks();
      const isrc = columns.isrc;
      grid.select({ row: 1, col: col(grid, 'isrc') });
      grid.startEdit('GB-AYE-21');
      grid.commitEdit();
      grid.library.validateNow();
      expect(grid.cellFindings(grid.rowAt(1)!, isrc)).toMatchObject([{ level: 'error' }]);
      expect(grid.library.counts.errors).toBe(1);
      grid.startEdit('GB-AYE-21-00002');
      grid.commitEdit();
      await grid.library.validated();
      expect(grid.cellFindings(grid.rowAt(1)!, isrc)).toEqual([]);
    });

    it('flags duplicate positions on the tracks and missing ones once, on their album', async () => {
      const { grid, library } = await libraryWith({
        'A/01.mp3': { ...album(1), track: '1' },
        'A/02.mp3': { ...album(2), track: '1' },
        'A/04.mp3': { ...album(4), track: '4' },
      });
      const track = columns.track;
      expect(
        grid
          .cellFindings(grid.rowAt(0)!, track)
          .map((f) => f.message)
          .join(),
      ).toMatch(/also given to/);
      expect(grid.cellFindings(grid.rowAt(2)!, track)).toEqual([]);
      expect(
        library
          .albumOf('id:A/04.mp3')!
          .findings.map((f) => f.message)
          .join(),
      ).toMatch(/^no track 2, 3: tracks are missing/);
    });
  });

  describe('multi-row edit', () => {
    it('sets one field on every selected row and leaves the rest as it was', async () => {
      const { grid } = await fourTracks();
      grid.albumWide = false;
      grid.select({ row: 0, col: 0 });
      grid.select({ row: 2, col: 0 }, true);
      expect(grid.setOnSelection('album_type', 'Compilation')).toBe(3);
      expect([0, 1, 2, 3].map((r) => cell(grid, r, 'album_type'))).toEqual([
        'Compilation',
        'Compilation',
        'Compilation',
        '',
      ]);
      expect([0, 1, 2].map((r) => cell(grid, r, 'title'))).toEqual(['Song 1', 'Song 2', 'Song 3']);
    });

    it('Ctrl+Enter commits an edit to every selected row', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'artists') });
      grid.select({ row: 1, col: col(grid, 'artists') }, true);
      grid.startEdit('Mara Lind; Lena Park');
      grid.key({ key: 'Enter', ctrlKey: true });
      expect(cell(grid, 0, 'artists')).toBe('Mara Lind; Lena Park');
      expect(cell(grid, 1, 'artists')).toBe('Mara Lind; Lena Park');
      expect(cell(grid, 2, 'artists')).toBe('Lena Park');
    });

    it('applies album-level fields to the whole album when asked', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'album') });
      grid.startEdit('Night Shift (Deluxe)');
      grid.commitEdit();
      expect([0, 1, 2, 3].map((r) => cell(grid, r, 'album'))).toEqual(
        Array(4).fill('Night Shift (Deluxe)'),
      );
    });
  });

  describe('undo and redo', () => {
    it('undoes every edit in order and redoes it', async () => {
      const { grid, library } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'title') });
      grid.startEdit('A');
      grid.commitEdit();
      grid.select({ row: 0, col: col(grid, 'title') });
      grid.startEdit('B');
      grid.commitEdit();
      grid.key({ key: 'z', ctrlKey: true });
      expect(cell(grid, 0, 'title')).toBe('A');
      library.undo();
      expect(cell(grid, 0, 'title')).toBe('Song 1');
      expect(grid.rowAt(0)!.draft).toBe(grid.rowAt(0)!.original);
      grid.key({ key: 'y', ctrlKey: true });
      expect(cell(grid, 0, 'title')).toBe('A');
    });

    it('drops edits that change nothing', async () => {
      const { library, grid } = await fourTracks();
      expect(library.setCell([grid.viewIds[0]!], columns.title, 'Song 1')).toBe(0);
      expect(library.undoLabel).toBeUndefined();
    });
  });

  describe('copy, paste and fill', () => {
    it('copies a range as TSV and pastes a block from a spreadsheet', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'title') });
      grid.select({ row: 1, col: col(grid, 'artists') }, true);
      expect(grid.copyText()).toBe('Song 1\tLena Park\nSong 2\tLena Park');
      grid.select({ row: 2, col: col(grid, 'title') });
      expect(grid.paste('X\tY\r\n"Z, quoted"\tW\r\n')).toBe(2);
      expect(cell(grid, 2, 'title')).toBe('X');
      expect(cell(grid, 2, 'artists')).toBe('Y');
      expect(cell(grid, 3, 'title')).toBe('Z, quoted');
      expect(grid.library.undoLabel).toBe('Paste');
    });

    it('fills one pasted value into the whole range', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'album_type') });
      grid.select({ row: 3, col: col(grid, 'album_type') }, true);
      grid.paste('Single\n');
      expect([0, 1, 2, 3].map((r) => cell(grid, r, 'album_type'))).toEqual(Array(4).fill('Single'));
    });

    it('fills down with Ctrl+D and clears with Delete, skipping read-only cells', async () => {
      const { grid } = await fourTracks();
      grid.select({ row: 0, col: col(grid, 'file') });
      grid.select({ row: 2, col: col(grid, 'title') }, true);
      grid.key({ key: 'd', ctrlKey: true });
      expect([0, 1, 2].map((r) => cell(grid, r, 'title'))).toEqual(Array(3).fill('Song 1'));
      expect(cell(grid, 1, 'file')).toBe('Night Shift/02.mp3');
      grid.key({ key: 'Delete' });
      expect(cell(grid, 1, 'title')).toBe('');
      expect(cell(grid, 3, 'title')).toBe('Song 4');
    });
  });

  describe('find and replace', () => {
    it('replaces plain text case-insensitively, or by regular expression', async () => {
      const { grid } = await fourTracks();
      expect(grid.replaceAll({ column: 'title', find: 'song', replace: 'Track' })).toBe(4);
      expect(cell(grid, 0, 'title')).toBe('Track 1');
      grid.replaceAll({
        column: 'title',
        find: '^Track (\\d)$',
        replace: '$1. Track',
        regex: true,
      });
      expect(cell(grid, 3, 'title')).toBe('4. Track');
      expect(grid.replaceAll({ column: 'title', find: '(', replace: '', regex: true })).toBe(0);
      expect(grid.notice).toMatch(/Not a valid regular expression/);
    });
  });

  describe('columns', () => {
    it('keeps order, visibility and widths as a preference', async () => {
      const { library, grid: first } = await fourTracks();
      const store = new Map<string, string>();
      const storage = {
        getItem: (k: string) => store.get(k) ?? null,
        setItem: (k: string, v: string) => void store.set(k, v),
      };
      const grid = new (first.constructor as typeof import('./grid-state.svelte.js').GridState)(
        library,
        storage,
      );
      grid.toggleColumn('lyrics');
      grid.moveColumnBefore('isrc', 'title');
      grid.resize('title', 321);
      const again = new (first.constructor as typeof import('./grid-state.svelte.js').GridState)(
        library,
        storage,
      );
      expect(again.visible.map((c) => c.id).slice(0, 5)).toEqual([
        'status',
        'track',
        'file',
        'isrc',
        'title',
      ]);
      expect(again.visible.some((c) => c.id === 'lyrics')).toBe(false);
      expect(again.widthOf(columns.title)).toBe(321);
    });
  });

  describe('sorting and filtering', () => {
    it('sorts numerically, filters by text, level and album', async () => {
      const { grid } = await libraryWith({
        'a.mp3': { title: 'Track 10', isrc: 'bad' },
        'b.mp3': { title: 'Track 9', album: 'Other' },
        'c.mp3': { title: 'Track 1', album: 'Night Shift', artist: 'X' },
      });
      grid.toggleSort('title');
      expect(grid.viewIds.map((id) => grid.library.row(id)!.draft.file)).toEqual([
        'c.mp3',
        'b.mp3',
        'a.mp3',
      ]);
      grid.library.validateNow();
      grid.filterLevel = 'errors';
      expect(grid.viewIds).toEqual(['id:a.mp3']);
      grid.filterLevel = 'all';
      grid.filterText = 'track 9';
      expect(grid.viewIds).toEqual(['id:b.mp3']);
      grid.filterText = '';
      grid.filterAlbum = grid.albums.find((a) => a.label.startsWith('Night Shift'))!.key;
      expect(grid.viewIds).toEqual(['id:c.mp3']);
    });
  });
  describe('a bulk edit over many rows', () => {
    it('shows every edited row, the right findings once settled, and undoes in one step', async () => {
      const files: Record<string, FakeTags> = {};
      for (let i = 0; i < 1200; i++) {
        const a = Math.floor(i / 12);
        files[`Album ${a}/${String(i % 12).padStart(2, '0')}.mp3`] = {
          title: `Song ${i}`,
          isrc: `GBAYE21${String(i).padStart(5, '0')}`,
          artist: `Artist ${a % 40}`,
          album: `Album ${a}`,
          track: String((i % 12) + 1),
          date: '2021-05-14',
        };
      }
      const { grid, library } = await libraryWith(files);
      grid.toggleSort('title');
      const clean = library.counts;
      grid.selectRows(0, 1199);
      expect(grid.setOnSelection('release_date', '2021-13-45')).toBe(1200);
      // Every edited row reads the new value at once, in the view as sorted before.
      expect(
        grid.viewIds.every((id) => library.row(id)!.draft.releaseDate?.value === '2021-13-45'),
      ).toBe(true);
      await library.validated();
      expect(library.counts.errors).toBe(1200);
      expect(
        library.findings.get(grid.viewIds[600]!)!.some((f) => f.field === 'release_date'),
      ).toBe(true);

      // Titles edited so the sort order changes: the view follows.
      grid.selectRows(0, 0);
      const first = grid.viewIds[0]!;
      grid.setOnSelection('title', 'zz last');
      expect(grid.viewIds.at(-1)).toBe(first);
      // An album renamed on its tracks: the album filter offers the new name, not the old one.
      const album0 = [...library.rows].filter((row) => row.draft.file.startsWith('Album 0/'));
      library.setCell(
        album0.map((row) => row.id),
        columns.album,
        'Renamed',
      );
      await library.validated();
      const labels = grid.albums.map((a) => a.label);
      expect(labels.some((l) => l.startsWith('Renamed'))).toBe(true);
      expect(labels.some((l) => l.startsWith('Album 0 '))).toBe(false);

      library.undo();
      library.undo();
      library.undo();
      await library.validated();
      expect(library.counts).toEqual(clean);
      expect(library.rows.every((row) => row.draft.releaseDate?.value === '2021-05-14')).toBe(true);
      expect(library.row(first)!.draft.title?.value).not.toBe('zz last');
    });
  });
});
