/**
 * What the renderer sends on save (#20): only the rows replaced since the last save, the ids taken
 * out, and the order only when rows came back in the middle; cut into patches of bounded size.
 */
import { describe, expect, it } from 'vitest';

import {
  applyLibraryPatch,
  libraryChanges,
  patchRowLimit,
  splitPatch,
} from '../../../src-main/core/library/library-patch.js';

const rows = (...ids: string[]) => ids.map((id) => ({ id, v: 0 }));
// The same list on both sides: ignored files unchanged.
const ignored: never[] = [];

describe('libraryChanges()', () => {
  it('finds nothing when no row was replaced', () => {
    const saved = { rows: rows('a', 'b'), ignored };
    expect(libraryChanges(saved, { ...saved })).toBeNull();
  });

  it('names only the replaced row of an edit', () => {
    const before = rows('a', 'b', 'c');
    const after = [before[0]!, { id: 'b', v: 1 }, before[2]!];
    expect(libraryChanges({ rows: before, ignored }, { rows: after, ignored })).toEqual({
      rows: [{ id: 'b', v: 1 }],
      removed: [],
    });
  });

  it('sends new rows and removals without the order when it follows from them', () => {
    const before = rows('a', 'b', 'c');
    const after = [before[0]!, before[2]!, { id: 'd', v: 0 }];
    expect(libraryChanges({ rows: before, ignored }, { rows: after, ignored })).toEqual({
      rows: [{ id: 'd', v: 0 }],
      removed: ['b'],
    });
  });

  it('sends the rows an add appended and those it replaced, nothing removed and no order', () => {
    const before = rows('a', 'b', 'c');
    const after = [before[0]!, { id: 'b', v: 1 }, before[2]!, { id: 'd', v: 0 }, { id: 'e', v: 0 }];
    const changes = libraryChanges({ rows: before, ignored }, { rows: after, ignored })!;
    expect(changes).toEqual({
      rows: [
        { id: 'b', v: 1 },
        { id: 'd', v: 0 },
        { id: 'e', v: 0 },
      ],
      removed: [],
    });
    const library = { rows: new Map(before.map((r) => [r.id, r])), ignored };
    applyLibraryPatch(library, changes);
    expect([...library.rows.values()]).toEqual(after);
  });

  it('sends the order when rows come back in the middle', () => {
    const before = rows('a', 'c');
    const after = [before[0]!, { id: 'b', v: 0 }, before[1]!];
    const changes = libraryChanges({ rows: before, ignored }, { rows: after, ignored })!;
    expect(changes.order).toEqual(['a', 'b', 'c']);
    const library = { rows: new Map(before.map((r) => [r.id, r])), ignored };
    applyLibraryPatch(library, changes);
    expect([...library.rows.keys()]).toEqual(['a', 'b', 'c']);
  });
});

describe('splitPatch()', () => {
  it('cuts rows into bounded patches, with removals and order in the last', () => {
    const many = Array.from({ length: patchRowLimit * 2 + 1 }, (_, i) => ({ id: `r${i}`, v: 0 }));
    const parts = splitPatch({ rows: many, removed: ['x'], order: ['r0'] });
    expect(parts.map((p) => p.rows.length)).toEqual([patchRowLimit, patchRowLimit, 1]);
    expect(parts.slice(0, 2).every((p) => p.removed.length === 0 && !p.order)).toBe(true);
    expect(parts[2]).toMatchObject({ removed: ['x'], order: ['r0'] });
    expect(splitPatch({ rows: [], removed: ['x'] })).toEqual([{ rows: [], removed: ['x'] }]);
  });

  it('counts an edited row, which carries its original beside its draft, as two', () => {
    const draft = { title: 'A' };
    const asRead = Array.from({ length: patchRowLimit }, (_, i) => ({
      id: `r${i}`,
      draft,
      original: 'draft' as const,
    }));
    const edited = asRead.map((row) => ({ ...row, original: { title: 'B' } }));
    const fresh = asRead.map((row) => ({ ...row, original: null }));
    // Rows as read (their original sent as 'draft') and rows without one weigh one each.
    expect(splitPatch({ rows: asRead, removed: [] }).map((p) => p.rows.length)).toEqual([
      patchRowLimit,
    ]);
    expect(splitPatch({ rows: fresh, removed: [] }).map((p) => p.rows.length)).toEqual([
      patchRowLimit,
    ]);
    // As the page holds them, before `sentRow`: an original that is the draft itself.
    const held = asRead.map((row) => ({ ...row, original: draft }));
    expect(splitPatch({ rows: held, removed: [] }).map((p) => p.rows.length)).toEqual([
      patchRowLimit,
    ]);
    expect(splitPatch({ rows: edited, removed: [] }).map((p) => p.rows.length)).toEqual([
      patchRowLimit / 2,
      patchRowLimit / 2,
    ]);
    // Mixed: a part never holds more than a limit's worth, and every row is sent once, in order.
    const tenth = patchRowLimit / 10;
    const mixed = [
      ...edited.slice(0, 3 * tenth),
      ...asRead.slice(3 * tenth, 9 * tenth),
      ...edited.slice(9 * tenth),
    ];
    const parts = splitPatch({ rows: mixed, removed: [] });
    expect(parts.map((p) => p.rows.length)).toEqual([7 * tenth, 3 * tenth]);
    expect(parts.flatMap((p) => p.rows.map((r) => r.id))).toEqual(mixed.map((r) => r.id));
  });
});
