import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from './columns.js';
import { type AlbumHeader, type GridState, isAlbumHeader } from './grid-state.svelte.js';

const col = (grid: GridState, id: string) => grid.visible.findIndex((c) => c.id === id);
const headers = (grid: GridState) => grid.lines.filter(isAlbumHeader);

async function twoAlbums() {
  const setup = await libraryWith({
    'Night/01.flac': {
      title: 'One',
      artist: 'Lena Park',
      album: 'Night',
      upc: '5099902988023',
      track: '1',
    },
    'Night/02.flac': {
      title: 'Two',
      artist: 'Lena Park',
      album: 'Night',
      upc: '5099902988023',
      track: '2',
    },
    'Night/04.flac': {
      title: 'Four',
      artist: 'Lena Park',
      album: 'Night',
      upc: '5099902988023',
      track: '4',
    },
    'Night/04b.flac': {
      title: 'Four again',
      artist: 'Lena Park',
      album: 'Night',
      upc: '5099902988023',
      track: '4',
    },
    'Day/01.flac': { title: 'Morning', artist: 'Sam Reed', album: 'Day', track: '1' },
  });
  setup.grid.groupByAlbum = true;
  return setup;
}

describe('grid grouped by album', () => {
  it('puts a header line before each album with its tracks, artist, UPC and position problems', async () => {
    const { grid } = await twoAlbums();
    expect(grid.lines).toHaveLength(7);
    const [day, night] = headers(grid) as [AlbumHeader, AlbumHeader];
    expect(day).toMatchObject({
      title: 'Day',
      artist: 'Sam Reed',
      upc: '',
      gaps: [],
      duplicates: [],
    });
    expect(night).toMatchObject({
      title: 'Night',
      artist: 'Lena Park',
      upc: '5099902988023',
      gaps: ['3'],
      duplicates: ['4'],
    });
    expect(night.ids).toHaveLength(4);
    expect(grid.lines[grid.lines.indexOf(night) + 1]).toBe(night.ids[0]);
    // Without grouping there are no headers: lines are the rows.
    grid.groupByAlbum = false;
    expect(grid.lines).toEqual(grid.viewIds);
  });

  it('edits an album-level field once on the header, for every track of the album, as one undo step', async () => {
    const { grid, library } = await twoAlbums();
    const night = headers(grid)[1]!;
    grid.select({ row: grid.lines.indexOf(night), col: col(grid, 'album_type') });
    expect(grid.key({ key: 'F2' })).toBe(true);
    grid.editing!.text = 'Compilation';
    grid.key({ key: 'Enter' });
    for (const id of night.ids) {
      expect(columns.album_type.get(library.row(id)!.draft)).toBe('Compilation');
      expect(library.row(id)!.draft.album?.type?.source).toEqual({ kind: 'manual' });
    }
    expect(columns.album_type.get(library.row('id:Day/01.flac')!.draft)).toBe('');
    expect(library.undoLabel).toBe('Set Album type of Night (5099902988023)');
    expect(headers(grid)[1]!.values.album_type).toBe('Compilation');

    library.undo();
    for (const id of night.ids) expect(library.row(id)!.draft.album?.type).toBeUndefined();
  });

  it('shows a field that differs within the album as mixed and refuses per-track columns', async () => {
    const { grid, library } = await twoAlbums();
    library.setCell(['id:Night/01.flac'], columns.album_type, 'Single');
    const night = headers(grid)[1]!;
    expect(night.values.album_type).toBeNull();
    expect(night.values.album).toBe('Night');
    grid.select({ row: grid.lines.indexOf(night), col: col(grid, 'title') });
    expect(grid.startEdit()).toBe(false);
    expect(grid.notice).toMatch(/Title is set per track/);
  });

  it('moves over header lines with the keyboard and leaves them out of the selected tracks', async () => {
    const { grid } = await twoAlbums();
    grid.select({ row: 0, col: col(grid, 'title') });
    grid.key({ key: 'ArrowDown' });
    grid.key({ key: 'ArrowDown', shiftKey: true });
    grid.key({ key: 'ArrowDown', shiftKey: true });
    expect(grid.range).toMatchObject({ top: 1, bottom: 3 });
    // Day's track, Night's header, Night's first track.
    expect(grid.selectedIds).toEqual(['id:Day/01.flac', 'id:Night/01.flac']);
    expect(grid.reveal('id:Night/04b.flac')).toBe(true);
    expect(grid.rowAt(grid.active.row)?.id).toBe('id:Night/04b.flac');
  });

  it('fills down from the first track of a range that starts on a header', async () => {
    const { grid, library } = await twoAlbums();
    const night = headers(grid)[1]!;
    const at = grid.lines.indexOf(night);
    grid.select({ row: at, col: col(grid, 'artists') });
    grid.select({ row: at + 2, col: col(grid, 'artists') }, true);
    library.setCell(['id:Night/01.flac'], columns.artists, 'Lena Park; Theo Vance');
    expect(grid.fillDown()).toBe(1);
    expect(columns.artists.get(library.row(night.ids[1]!)!.draft)).toBe('Lena Park; Theo Vance');
  });
});
