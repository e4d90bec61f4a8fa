/**
 * Reopening a saved library (#20): the base is one line per row, read as a stream, so the first
 * page is answered before the rest is read; every edit the journal holds is there, in every page;
 * and a library saved by an earlier version (one JSON document) still opens, edits and all.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FileGrants } from '../../../src-main/core/files/file-grants.js';
import {
  LIBRARY_FIRST_ROWS,
  LIBRARY_PAGE_ROWS,
  LibraryLoads,
} from '../../../src-main/core/library/library-loads.js';
import {
  journalPath,
  loadLibrarySession,
  patchLibrarySession,
  saveLibrarySession,
  sessionPath,
} from '../../../src-main/core/library/library-session.js';
import type { SessionRow } from '../../../src-main/core/library/session-schema.js';
import { Logger } from '../../../src-main/core/log.js';
import { collectGarbage } from '../../support/garbage.js';
import { sessionRow } from '../../support/session-rows.js';

const row = (id: string, title: string): SessionRow => sessionRow(id, title, { fromTag: true });

/** A row as read from its tags and not edited since: its original is its draft. */
const untouched = (id: string, title: string): SessionRow => {
  const r = row(id, title);
  return { ...r, original: r.draft };
};

describe('reopening the saved library', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-reopen-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('answers the first page with the edits in it, then pages the rest with theirs', async () => {
    const grants = new FileGrants();
    const count = 2 * LIBRARY_PAGE_ROWS + 123;
    const rows = Array.from({ length: count }, (_, i) => untouched(`r${i}`, `Track ${i}`));
    await saveLibrarySession(dir, grants, { version: 1, rows, ignored: [] });
    // Edits saved since, in the journal: one in the first page, one in the last, one out, one in.
    const first = {
      ...rows[3]!,
      draft: { ...rows[3]!.draft, title: { value: 'Edited', source: { kind: 'manual' as const } } },
    };
    const last = { ...rows[count - 1]!, excluded: true };
    await patchLibrarySession(dir, grants, { rows: [first, last], removed: [] });
    await patchLibrarySession(dir, grants, { rows: [row('new', 'Added')], removed: ['r7'] });

    const loads = new LibraryLoads(dir, new FileGrants(), new Logger(dir, 'test'));
    const loaded = await loads.open(() => undefined);
    expect(loaded.total).toBe(count);
    expect(loaded.session!.rows).toHaveLength(LIBRARY_FIRST_ROWS);
    expect(loaded.session!.rows[3]!.draft.title?.value).toBe('Edited');
    // The edited row keeps what it was read as; the untouched ones read back whole.
    expect(loaded.session!.rows[3]!.original).toEqual(rows[3]!.original);
    expect(loaded.session!.rows[4]).toEqual(rows[4]);
    expect(loaded.session!.rows.map((r) => r.id)).not.toContain('r7');
    const all = [...loaded.session!.rows];
    while (all.length < loaded.total) all.push(...(await loads.rows(loaded.load, all.length)));
    expect(all).toHaveLength(count);
    expect(all.at(-2)).toEqual(last);
    expect(all.at(-1)).toEqual(row('new', 'Added'));
    // The last page sent, the load is done with.
    await expect(loads.rows(loaded.load, 0)).rejects.toThrow(/opened again/);
  });

  it('lets each page of rows go once the page asks for the next, not at the last', async () => {
    const grants = new FileGrants();
    const count = 4 * LIBRARY_PAGE_ROWS;
    const rows = Array.from({ length: count }, (_, i) => untouched(`r${i}`, `Track ${i}`));
    await saveLibrarySession(dir, grants, { version: 1, rows, ignored: [] });
    const loads = new LibraryLoads(dir, new FileGrants(), new Logger(dir, 'test'));
    // Main's rows are held here only weakly: the page holds its own copies (another process).
    const sent: Array<WeakRef<object>> = [];
    const held = (rows: readonly SessionRow[]) => {
      sent.push(...rows.map((r) => new WeakRef(r)));
      return rows.length;
    };
    const { load, total } = await loads
      .open(() => undefined)
      .then((loaded) => ({
        load: loaded.load,
        total: loaded.total,
        first: held(loaded.session!.rows),
      }));
    let offset = LIBRARY_FIRST_ROWS;
    offset += held(await loads.rows(load, offset));
    offset += held(await loads.rows(load, offset));
    // Asking for the rows after the second page: every row before them is let go.
    const next = await loads.rows(load, offset);
    collectGarbage();
    // All but a stray row or two, which V8 may still reach from its caches (held to the last
    // page, all 2,500 stayed).
    const alive = sent.slice(0, offset).filter((ref) => ref.deref() !== undefined).length;
    expect(alive).toBeLessThanOrEqual(5);
    expect(next[0]!.id).toBe(`r${offset}`);
    // A page already let go is not sent again.
    await expect(loads.rows(load, 0)).rejects.toThrow(/paged past/);
    offset += next.length;
    expect(offset + (await loads.rows(load, offset)).length).toBe(total);
  });

  it('answers a page past the end with no rows at once, whatever offset a hostile page sends', async () => {
    const grants = new FileGrants();
    const rows = Array.from({ length: 3 * LIBRARY_FIRST_ROWS }, (_, i) =>
      untouched(`r${i}`, `Track ${i}`),
    );
    await saveLibrarySession(dir, grants, { version: 1, rows, ignored: [] });
    const loads = new LibraryLoads(dir, new FileGrants(), new Logger(dir, 'test'));
    const { load } = await loads.open(() => undefined);
    // Rows up to the offset are let go; the rows there are, not 2^53 of them.
    await expect(loads.rows(load, Number.MAX_SAFE_INTEGER)).resolves.toEqual([]);
  });

  it('opens a library saved as one document by an earlier version, with its journal and the kept one', async () => {
    const library = join(dir, 'library');
    await mkdir(library, { recursive: true });
    const a = untouched('a', 'One');
    const b = row('b', 'Two');
    const file = { id: 'a', path: join(dir, 'gone.flac'), size: 5, mtimeMs: 0 };
    // As the app saved it before: one document, an original that is its draft written 'draft'.
    await writeFile(
      join(library, 'session.json'),
      `${JSON.stringify({
        version: 1,
        files: [file],
        session: { version: 1, rows: [{ ...a, original: 'draft' }, b], ignored: [] },
        journal: { epoch: 'e1', seq: 4 },
      })}\n`,
    );
    // A line the base holds already (seq 4), and one saved after it.
    const line = (seq: number, title: string) =>
      `${JSON.stringify({ epoch: 'e1', seq, patch: { rows: [row('b', title)], removed: [] }, files: [] })}\n`;
    await writeFile(journalPath(dir), line(4, 'Stale') + line(5, 'Deux'));
    await writeFile(
      join(library, 'session.previous.json'),
      `${JSON.stringify({
        version: 1,
        files: [],
        session: { version: 1, rows: [a, b, row('c', 'Three')], ignored: [] },
      })}\n`,
    );

    const loaded = await loadLibrarySession(dir, new FileGrants());
    expect(loaded.session?.rows).toEqual([a, row('b', 'Deux')]);
    // Its file is gone: the row is kept, marked missing, as before.
    expect(loaded.missing).toEqual(['a', 'b']);
    expect(loaded.previous).toMatchObject({ tracks: 3 });
    // Rewritten in the current form once, the old documents gone.
    expect(existsSync(sessionPath(dir))).toBe(true);
    expect(existsSync(join(library, 'session.json'))).toBe(false);
    expect(existsSync(join(library, 'session.previous.json'))).toBe(false);
    // And it goes on saving.
    await patchLibrarySession(dir, new FileGrants(), { rows: [row('b', 'Zwei')], removed: [] });
    const again = await loadLibrarySession(dir, new FileGrants());
    expect(again.session?.rows.map((r) => r.draft.title?.value)).toEqual(['One', 'Zwei']);
  });
});
