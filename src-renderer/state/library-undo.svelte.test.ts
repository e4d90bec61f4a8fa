/**
 * Nothing a user did is lost without a way back (#18): Clear, Remove and the row flags are
 * undoable commands like edits, in the order they were made.
 */
import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';

const album = {
  'A/01.flac': { title: 'One' },
  'A/02.flac': { title: 'Two' },
  'A/03.flac': { title: 'Three' },
};

describe('the library: taking rows out, and back', () => {
  it('undoes Clear after edits, bringing every track back with its edits, then redoes it', async () => {
    const { library, grid } = await libraryWith(album);
    const before = library.rows.map((r) => r.id);
    grid.select({ row: 0, col: 0 });
    library.setCell([before[0]!], { ...grid.visible.find((c) => c.id === 'title')! }, 'Uno');
    library.clear();
    expect(library.rows).toEqual([]);
    expect(library.undoLabel).toBe('Clear 3 tracks');
    library.undo();
    expect(library.rows.map((r) => r.id)).toEqual(before);
    expect(library.rows[0]!.draft.title?.value).toBe('Uno');
    // The edit made before Clear is still one undo further back.
    expect(library.undoLabel).toBe('Edit Title');
    library.redo();
    expect(library.rows).toEqual([]);
    library.undo();
    library.undo();
    expect(library.rows[0]!.draft.title?.value).toBe('One');
  });

  it('removes the selected tracks as one undoable step, keeping the others in place', async () => {
    const { library, grid } = await libraryWith(album);
    const ids = library.rows.map((r) => r.id);
    grid.selectRows(0, 1);
    expect(grid.removeSelection()).toBe(2);
    expect(library.rows.map((r) => r.id)).toEqual([ids[2]]);
    expect(grid.notice).toBe('Removed 2 tracks (Undo brings them back)');
    library.undo();
    expect(library.rows.map((r) => r.id)).toEqual(ids);
  });

  it('saves the session after Clear and again after its undo', async () => {
    const { library, api } = await libraryWith(album);
    library.clear();
    await library.saveNow();
    expect(api.saved.session?.rows).toEqual([]);
    library.undo();
    await library.saveNow();
    expect(api.saved.session?.rows).toHaveLength(3);
  });

  it('undoes Exclude and Include like any edit', async () => {
    const { library } = await libraryWith(album);
    const [first] = library.rows.map((r) => r.id);
    library.setExcluded([first!], true);
    expect(library.undoLabel).toBe('Exclude 1 track');
    library.undo();
    expect(library.rows[0]!.excluded).toBeUndefined();
    library.redo();
    expect(library.rows[0]!.excluded).toBe(true);
  });

  it('brings back no second row for a file added again after Clear', async () => {
    const { library } = await libraryWith(album);
    const rows = library.rows;
    library.clear();
    library.rows = [rows[1]!];
    library.undo();
    expect(library.rows.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
  });
});
