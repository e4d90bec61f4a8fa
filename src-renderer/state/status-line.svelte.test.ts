import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { StatusLine } from './status-line.svelte.js';

const album = {
  'A/01.flac': { title: 'One' },
  'A/02.flac': { title: 'Two' },
  'A/03.flac': { title: 'Three' },
};

describe('the Library status line', () => {
  it('says what Undo and Redo did instead of the notice they made stale', async () => {
    const { library, grid } = await libraryWith(album);
    const status = new StatusLine(() => ({ grid, library }));
    grid.selectRows(0, 1);
    grid.removeSelection();
    expect(status.text).toBe('Removed 2 tracks (Undo brings them back)');
    library.undo();
    expect(library.rows).toHaveLength(3);
    expect(status.text).toBe('Undone: Remove 2 tracks');
    library.redo();
    expect(library.rows).toHaveLength(1);
    expect(status.text).toBe('Redone: Remove 2 tracks');
  });

  it("shows the grid's next notice, and the next edit's, once Undo was said", async () => {
    const { library, grid } = await libraryWith(album);
    const status = new StatusLine(() => ({ grid, library }));
    grid.selectRows(0, 0);
    grid.excludeSelection(true);
    expect(status.text).toBe('Excluded 1 track');
    library.undo();
    expect(status.text).toBe('Undone: Exclude 1 track');
    grid.selectRows(1, 2);
    grid.excludeSelection(true);
    expect(status.text).toBe('Excluded 2 tracks');
    library.undo();
    expect(status.text).toBe('Undone: Exclude 2 tracks');
    grid.notice = 'File can’t be edited here';
    expect(status.text).toBe('File can’t be edited here');
  });
});
