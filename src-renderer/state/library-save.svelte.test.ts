/**
 * Saving a big library sends what changed (#20): adding 5,000 tracks goes in patches of at most a
 * thousand rows, and an edit afterwards sends the edited row alone, never the library.
 */
import { describe, expect, it } from 'vitest';

import { patchRowLimit } from '../../src-main/core/library/library-patch.js';
import { type FakeTags, libraryWith } from '../../test/fakes/fake-library.js';

const files: Record<string, FakeTags> = {};
for (let i = 0; i < 5000; i++) {
  files[`Album ${Math.floor(i / 12)}/${String(i % 12).padStart(2, '0')}.flac`] = {
    title: `Track ${i}`,
    isrc: `GBXYZ24${String(i).padStart(5, '0')}`,
  };
}

describe('the library saved by what changed', () => {
  it('sends 5,000 new tracks in bounded patches, then one edited row alone', async () => {
    const { library, grid, api } = await libraryWith(files);
    await library.saveNow();
    expect(api.saved.session?.rows).toHaveLength(5000);
    expect(api.patches.every((p) => p.rows.length <= patchRowLimit)).toBe(true);
    // A track as read sends its tags once: its original is the draft, sent as 'draft'.
    expect(api.patches.flatMap((p) => p.rows).every((r) => r.original === 'draft')).toBe(true);
    expect(api.saved.session?.rows[0]?.original).toEqual(api.saved.session?.rows[0]?.draft);
    const sent = api.patches.length;

    const id = library.rows[4321]!.id;
    const title = grid.visible.find((c) => c.id === 'title')!;
    library.setCell([id], title, 'Renamed');
    await library.saveNow();
    const edit = api.patches.slice(sent);
    expect(edit).toHaveLength(1);
    expect(edit[0]!.rows.map((r) => r.id)).toEqual([id]);
    // An edited track sends the original it was read with, beside the edit.
    const original = edit[0]!.rows[0]!.original;
    expect(original !== 'draft' && original?.title?.value).toBe('Track 4321');
    expect(edit[0]!.removed).toEqual([]);
    expect(JSON.stringify(edit[0]).length).toBeLessThan(5_000);
    // What main holds is the whole library with the edit in its place.
    expect(api.saved.session?.rows[4321]?.draft.title?.value).toBe('Renamed');
    expect(api.saved.session?.rows).toHaveLength(5000);

    // Nothing changed since: a save sends nothing.
    await library.saveNow();
    expect(api.patches).toHaveLength(sent + 1);
  });

  it('sends the removed ids and, after an undo, the rows back in their places', async () => {
    const { library, grid, api } = await libraryWith(files);
    await library.saveNow();
    const ids = library.rows.map((r) => r.id);
    grid.selectRows(10, 11);
    grid.removeSelection();
    await library.saveNow();
    expect(api.patches.at(-1)).toMatchObject({ rows: [], removed: [ids[10], ids[11]] });
    library.undo();
    await library.saveNow();
    expect(api.patches.at(-1)!.rows.map((r) => r.id)).toEqual([ids[10], ids[11]]);
    expect(api.saved.session?.rows.map((r) => r.id)).toEqual(ids);
  });
});
