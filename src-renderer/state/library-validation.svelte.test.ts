import { describe, expect, it } from 'vitest';

import { type FakeTags, libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from './columns.js';

/** 10,000 tracks in 1,000 albums: a validation pass of many slices. */
function catalog(): Record<string, FakeTags> {
  const files: Record<string, FakeTags> = {};
  for (let i = 0; i < 10_000; i++) {
    const album = Math.floor(i / 10);
    files[`Album ${album}/${(i % 10) + 1}.flac`] = {
      title: `Song ${i}`,
      isrc: `GBAYE${String(2_100_000 + i).padStart(7, '0')}`,
      artist: 'Lena Park',
      album: `Album ${album}`,
      track: String((i % 10) + 1),
      date: '2021-05-14',
    };
  }
  return files;
}

/** Counts the tasks the page runs until `done` settles: how often it could paint and answer. */
async function tasksWhile(done: Promise<void>): Promise<number> {
  let tasks = 0;
  let over = false;
  void done.then(() => (over = true));
  while (!over) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    tasks++;
  }
  return tasks;
}

describe('validating a large library', () => {
  it('runs in slices the page answers between, and changes only what the edit changed', async () => {
    const { grid, library } = await libraryWith(catalog());
    await library.settled();
    const isrc = columns.isrc;
    const col = (id: string) => grid.visible.findIndex((c) => c.id === id);
    const before = library.findings;
    const albums = library.albums;

    grid.select({ row: 1, col: col('isrc') });
    grid.startEdit('GB-AYE-21');
    grid.commitEdit();
    // The edit shows at once; its finding follows, the page running other tasks meanwhile.
    expect(grid.rowAt(1)!.draft.isrc?.value).toBe('GB-AYE-21');
    expect(grid.cellFindings(grid.rowAt(1)!, isrc)).toEqual([]);
    // The pass starts just after the next paint; from there, the page runs tasks between its slices.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    expect(await tasksWhile(library.validated())).toBeGreaterThan(3);
    expect(grid.cellFindings(grid.rowAt(1)!, isrc)).toMatchObject([{ level: 'error' }]);
    expect(library.counts.errors).toBe(1);
    // Every other row keeps the very list it had: nothing that follows them recomputes.
    const other = grid.rowAt(2)!.id;
    expect(library.findings).not.toBe(before);
    expect(library.findings.get(other)).toBe(before.get(other));
    expect(library.albums).toBe(albums);

    // A change no finding follows leaves the findings as they were.
    const now = library.findings;
    grid.select({ row: 3, col: col('title') });
    grid.startEdit('Song 3 (Live)');
    grid.commitEdit();
    await library.validated();
    expect(library.findings).toBe(now);
    expect(library.albums).toBe(albums);
  });

  it('validates an edit made while a pass is under way once that pass ends', async () => {
    const { grid, library } = await libraryWith(catalog());
    await library.settled();
    const isrc = columns.isrc;
    const col = grid.visible.findIndex((c) => c.id === 'isrc');
    grid.select({ row: 1, col });
    grid.startEdit('GB-AYE-21');
    grid.commitEdit();
    // Past the next paint the pass has started, and it is far from done.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(grid.cellFindings(grid.rowAt(1)!, isrc)).toEqual([]);
    grid.select({ row: 5, col });
    grid.startEdit('GB-AYE-25');
    grid.commitEdit();
    await library.validated();
    expect(grid.cellFindings(grid.rowAt(1)!, isrc)).toMatchObject([{ level: 'error' }]);
    expect(grid.cellFindings(grid.rowAt(5)!, isrc)).toMatchObject([{ level: 'error' }]);
    expect(library.counts.errors).toBe(2);
  });
});
