/**
 * The library saved by what changed (#20): patches append to a journal beside the base, loading
 * applies them, compaction folds them in, and a shrinking save still keeps the larger library.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FileGrants } from '../../../src-main/core/files/file-grants.js';
import {
  journalPath,
  loadLibrarySession,
  patchLibrarySession,
  previousPath,
  restorePreviousSession,
  saveLibrarySession,
  sessionPath,
} from '../../../src-main/core/library/library-session.js';
import { readHeader } from '../../../src-main/core/library/session-base.js';
import {
  sentRow,
  type SessionRow,
  storedRow,
} from '../../../src-main/core/library/session-schema.js';
import { sessionRow } from '../../support/session-rows.js';

const row = (id: string, title: string, lyrics = ''): SessionRow =>
  sessionRow(id, title, { lyrics });

const titles = async (dir: string) =>
  (await loadLibrarySession(dir, new FileGrants())).session?.rows.map(
    (r) => `${r.id}:${r.draft.title?.value}`,
  );

/** Saves rows a ('One') and b ('Two') in the journal, then edits it by hand; the edited text. */
async function handEditedJournal(dir: string, grants: FileGrants, from: string, to: string) {
  await patchLibrarySession(dir, grants, {
    rows: [row('a', 'One'), row('b', 'Two')],
    removed: [],
  });
  const saved = await readFile(journalPath(dir), 'utf8');
  const edited = saved.replace(from, to);
  expect(edited).not.toBe(saved);
  await writeFile(journalPath(dir), edited);
  return edited;
}

describe('the library journal', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-journal-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes an original that is its draft once in the base, and loads it back whole', async () => {
    const read = row('a', 'One');
    const untouched = { ...read, original: { ...read.draft } };
    const edited = { ...row('b', 'Deux'), original: row('b', 'Two').draft };
    await saveLibrarySession(dir, new FileGrants(), {
      version: 1,
      rows: [untouched, edited],
      ignored: [],
    });
    const base = await readFile(sessionPath(dir), 'utf8');
    expect(base.match(/"One"/g)).toHaveLength(1);
    expect(base).toContain('"Two"');
    const loaded = (await loadLibrarySession(dir, new FileGrants())).session!.rows;
    expect(loaded).toEqual([untouched, edited]);
  });

  it("sends an original that is its draft itself as 'draft', and stores a copy of it so too", () => {
    const read = row('a', 'One');
    const same = { ...read, original: read.draft };
    const copy = { ...read, original: { ...read.draft } };
    expect(sentRow(same).original).toBe('draft');
    expect(sentRow(copy)).toBe(copy);
    expect(storedRow(copy).original).toBe('draft');
    expect(sentRow({ ...read, original: null }).original).toBeNull();
  });

  it("loads a saved row whose original was sent as 'draft' with its draft as original, also after the fold", async () => {
    const read = row('a', 'One');
    const edited = { ...row('b', 'Deux'), original: row('b', 'Two').draft };
    await patchLibrarySession(dir, new FileGrants(), {
      rows: [{ ...read, original: 'draft' }, edited],
      removed: [],
    });
    const line = await readFile(journalPath(dir), 'utf8');
    expect(line.match(/"One"/g)).toHaveLength(1);
    const loaded = (await loadLibrarySession(dir, new FileGrants())).session!.rows;
    expect(loaded).toEqual([{ ...read, original: read.draft }, edited]);
    expect(loaded[0]!.original).toBe(loaded[0]!.draft);
    // Folded into the base (a whole save), then loaded again: the same rows.
    await saveLibrarySession(dir, new FileGrants(), { version: 1, rows: loaded, ignored: [] });
    expect((await loadLibrarySession(dir, new FileGrants())).session!.rows).toEqual(loaded);
  });

  it('appends an edit as one line naming only the edited row, and loads it applied', async () => {
    await patchLibrarySession(dir, new FileGrants(), {
      rows: [row('a', 'One'), row('b', 'Two'), row('c', 'Three')],
      removed: [],
    });
    const before = (await stat(journalPath(dir))).size;
    await patchLibrarySession(dir, new FileGrants(), { rows: [row('b', 'Deux')], removed: [] });
    const appended = (await readFile(journalPath(dir), 'utf8')).split('\n').filter(Boolean);
    expect(appended).toHaveLength(2);
    expect(appended[1]).toContain('"Deux"');
    expect(appended[1]).not.toContain('"One"');
    expect((await stat(journalPath(dir))).size - before).toBe(Buffer.byteLength(appended[1]!) + 1);
    expect(await titles(dir)).toEqual(['a:One', 'b:Deux', 'c:Three']);
  });

  it("keeps an edited row's saved file when, after a restart, the edit came before its check", async () => {
    const path = join(dir, 'b.flac');
    await writeFile(path, 'audio');
    const grants = new FileGrants();
    const b = row((await grants.grant(path)).id, 'Two');
    await saveLibrarySession(dir, grants, { version: 1, rows: [row('a', 'One'), b], ignored: [] });
    // A new process, its file not granted again yet: the edit's line names no file for it.
    await patchLibrarySession(dir, new FileGrants(), {
      rows: [{ ...b, draft: { ...b.draft, title: { value: 'Deux', source: { kind: 'manual' } } } }],
      removed: [],
    });
    expect(await readFile(journalPath(dir), 'utf8')).toContain('"files":[]');
    const loaded = await loadLibrarySession(dir, new FileGrants());
    expect(loaded.session?.rows.map((r) => r.draft.title?.value)).toEqual(['One', 'Deux']);
    // Its file, from the base's line, is found again; the row never saved with one is missing.
    expect(loaded.missing).toEqual(['a']);
  });

  it('takes rows out, puts them back in their place and keeps the ignored files', async () => {
    const grants = new FileGrants();
    await patchLibrarySession(dir, grants, {
      rows: [row('a', 'One'), row('b', 'Two'), row('c', 'Three')],
      removed: [],
    });
    await patchLibrarySession(dir, grants, { rows: [], removed: ['b'] });
    expect(await titles(dir)).toEqual(['a:One', 'c:Three']);
    await patchLibrarySession(dir, grants, {
      rows: [row('b', 'Two')],
      removed: [],
      order: ['a', 'b', 'c'],
      ignored: [{ relativePath: 'notes.txt', reason: 'not an audio file' }],
    });
    const loaded = await loadLibrarySession(dir, grants);
    expect(loaded.session?.rows.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(loaded.session?.ignored).toEqual([
      { relativePath: 'notes.txt', reason: 'not an audio file' },
    ]);
  });

  it('folds the journal into the base once it outgrows it, losing nothing', async () => {
    const grants = new FileGrants();
    const lyrics = 'la '.repeat(1500);
    for (let batch = 0; batch < 6; batch++) {
      const rows = Array.from({ length: 1000 }, (_, i) =>
        row(`r${batch * 1000 + i}`, `Track ${batch * 1000 + i}`, lyrics),
      );
      await patchLibrarySession(dir, grants, { rows, removed: [] });
    }
    // Compaction runs after the save answers; the next save waits for it.
    await patchLibrarySession(dir, grants, { rows: [row('r0', 'First, edited')], removed: [] });
    const base = (await readHeader(sessionPath(dir)))!;
    // Folded at least once, and the journal never grows past its base by more than one save.
    expect(base.rows).toBeGreaterThanOrEqual(3000);
    const onePatch = 1000 * (lyrics.length + 200);
    expect((await stat(journalPath(dir))).size).toBeLessThan(
      (await stat(sessionPath(dir))).size + onePatch,
    );
    const loaded = (await loadLibrarySession(dir, grants)).session!;
    expect(loaded.rows).toHaveLength(6000);
    expect(loaded.rows[0]!.draft.title?.value).toBe('First, edited');
    expect(loaded.rows[5999]!.draft.title?.value).toBe('Track 5999');
    // 27 MB saved and folded several times over: seconds on a busy 2-core machine.
  }, 30_000);

  it('while saves keep coming, folds only a journal past its base; once they pause, the rest', async () => {
    const grants = new FileGrants();
    const lyrics = 'la '.repeat(1500);
    // Saves as the app sends them: a hundred rows at most each (`patchRowLimit`).
    const add = async (from: number, to: number) => {
      for (let start = from; start < to; start += 100) {
        const rows = Array.from({ length: 100 }, (_, i) =>
          row(`r${start + i}`, `Track ${start + i}`, lyrics),
        );
        await patchLibrarySession(dir, grants, { rows, removed: [] });
      }
    };
    const baseRows = async () => (await readHeader(sessionPath(dir)))?.rows ?? 0;
    const foldedTo = async (rows: number) => {
      const until = Date.now() + 30_000;
      while ((await baseRows()) < rows && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return baseRows();
    };
    // A library of 4,000 rows (~19 MB), most of it folded into the base (a journal under the
    // 4 MiB floor stays a journal).
    await add(0, 4000);
    // Saves paused: the fold that waited for the pause starts. A save after it (one with no rows)
    // is answered once that fold is done, however long a busy machine takes over it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await patchLibrarySession(dir, grants, { rows: [], removed: [] });
    const base = await baseRows();
    expect(base).toBeGreaterThanOrEqual(3000);
    // Files being added: 2,000 more rows, half the base, with no pause between saves.
    await add(4000, 6000);
    // Past a quarter of the base but not past it: not folded while saves may still come.
    expect(await baseRows()).toBe(base);
    // Saves paused: folded in a moment, and nothing lost.
    expect(await foldedTo(6000)).toBe(6000);
    // The fold empties the journal after its base is in place; a load waits for the fold.
    expect((await loadLibrarySession(dir, grants)).session!.rows).toHaveLength(6000);
    expect((await stat(journalPath(dir))).size).toBe(0);
  }, 60_000);

  it('folds a journal past 16 MB once saves pause, though a quarter of its large base is more', async () => {
    const grants = new FileGrants();
    // 800 rows of 100 KB: an 80 MB base, as a 45,000-track library's; a quarter of it is 20 MB.
    const lyrics = 'la '.repeat(33_000);
    const rows = Array.from({ length: 800 }, (_, i) => row(`r${i}`, `Track ${i}`, lyrics));
    await saveLibrarySession(dir, grants, { version: 1, rows, ignored: [] });
    expect((await stat(sessionPath(dir))).size).toBeGreaterThan(79e6);
    // A bulk edit of 180 of them: an 18 MB journal, which opening the library would read whole.
    for (let i = 0; i < 180; i += 60) {
      const edited = rows.slice(i, i + 60).map((r) => ({ ...r, excluded: true }));
      await patchLibrarySession(dir, grants, { rows: edited, removed: [] });
    }
    expect((await stat(journalPath(dir))).size).toBeGreaterThan(16 * 1024 * 1024);
    // Saves paused: folded in, and nothing lost.
    const until = Date.now() + 30_000;
    while ((await stat(journalPath(dir))).size > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await stat(journalPath(dir))).size).toBe(0);
    const loaded = (await loadLibrarySession(dir, grants)).session!.rows;
    expect(loaded.filter((r) => r.excluded)).toHaveLength(180);
    expect(loaded).toHaveLength(800);
  }, 60_000);

  it('refuses a save of more rows than a journal line loads, writing nothing', async () => {
    const grants = new FileGrants();
    await patchLibrarySession(dir, grants, { rows: [row('a', 'One')], removed: [] });
    const rows = Array.from({ length: 1001 }, (_, i) => row(`r${i}`, `Track ${i}`));
    await expect(patchLibrarySession(dir, grants, { rows, removed: [] })).rejects.toThrow(
      /1000 rows at most/,
    );
    expect(await titles(dir)).toEqual(['a:One']);
  });

  it('skips lines the base already holds when a crash left them after a compaction', async () => {
    const grants = new FileGrants();
    await patchLibrarySession(dir, grants, {
      rows: [row('a', 'One'), row('b', 'Two')],
      removed: [],
    });
    await patchLibrarySession(dir, grants, { rows: [row('a', 'Uno')], removed: [] });
    const stale = await readFile(journalPath(dir), 'utf8');
    // A shrinking save folds the journal into the base, then empties it.
    await patchLibrarySession(dir, grants, { rows: [], removed: ['b'] });
    await patchLibrarySession(dir, grants, { rows: [row('c', 'Three')], removed: [] });
    const fresh = await readFile(journalPath(dir), 'utf8');
    // As if the journal had not been emptied before the crash: old lines, then the new one.
    await writeFile(journalPath(dir), stale + fresh);
    expect(await titles(dir)).toEqual(['a:Uno', 'c:Three']);
  });

  it('drops a line cut short by a crash, and the next save starts a line of its own', async () => {
    const grants = new FileGrants();
    await patchLibrarySession(dir, grants, { rows: [row('a', 'One')], removed: [] });
    await appendFile(journalPath(dir), '{"epoch":"x","seq":2,"patch":{"rows":[{"id":"b"');
    expect(await titles(dir)).toEqual(['a:One']);
    await patchLibrarySession(dir, grants, { rows: [row('b', 'Two')], removed: [] });
    expect(await titles(dir)).toEqual(['a:One', 'b:Two']);
  });

  it('makes the library unreadable when a hand-edited journal row names a second id after its own', async () => {
    const grants = new FileGrants();
    // Parsed, a row keeps the last of two ids; the line is cut by the first.
    await handEditedJournal(dir, grants, '{"id":"a",', '{"id":"a","id":"b",');
    await expect(loadLibrarySession(dir, grants)).rejects.toMatchObject({
      code: 'invalid_session',
    });
  });

  it('leaves the library as it is when its journal is there but cannot be read, and saves nothing over it', async () => {
    const grants = new FileGrants();
    await saveLibrarySession(dir, grants, { version: 1, rows: [row('a', 'One')], ignored: [] });
    // The journal a folder: reading it fails. Taken as empty, a fold would drop what it holds.
    await rm(journalPath(dir), { force: true });
    await mkdir(journalPath(dir));
    const base = await readFile(sessionPath(dir));
    await expect(loadLibrarySession(dir, grants)).rejects.toThrow(
      /journal \(.+\) cannot be read \(EISDIR\); the library is left as it is\.$/,
    );
    await expect(
      patchLibrarySession(dir, grants, { rows: [row('b', 'Two')], removed: [] }),
    ).rejects.toThrow();
    expect(await readFile(sessionPath(dir))).toEqual(base);
    expect((await stat(journalPath(dir))).isDirectory()).toBe(true);
  });

  it('checks a journal row as it is read: a hand-edited row makes the library unreadable, nothing is cut off, and a later save of the row mends it', async () => {
    const grants = new FileGrants();
    // Row a's title edited by hand into a number: the line is whole, the row is not one.
    const edited = await handEditedJournal(dir, grants, '"value":"One"', '"value":1');
    await expect(loadLibrarySession(dir, grants)).rejects.toMatchObject({
      code: 'invalid_session',
      message: expect.stringContaining('is not readable'),
    });
    // Nor is it folded into the base: the save that would fold it says so, and writes nothing.
    await expect(
      patchLibrarySession(dir, grants, { rows: [], removed: ['b'] }),
    ).rejects.toMatchObject({ code: 'invalid_session' });
    expect(await readFile(journalPath(dir), 'utf8')).toBe(edited);
    // A later save of row a replaces it: the library loads again, row b with it.
    await patchLibrarySession(dir, grants, { rows: [row('a', 'Uno')], removed: [] });
    expect(await titles(dir)).toEqual(['a:Uno', 'b:Two']);
  });

  it('keeps the larger library before Clear, and restores it with the journal folded in', async () => {
    const grants = new FileGrants();
    await patchLibrarySession(dir, grants, {
      rows: [row('a', 'One'), row('b', 'Two')],
      removed: [],
    });
    await patchLibrarySession(dir, grants, { rows: [row('b', 'Deux')], removed: [] });
    await patchLibrarySession(dir, grants, { rows: [], removed: ['a', 'b'] });
    const cleared = await loadLibrarySession(dir, grants);
    expect(cleared.session?.rows).toEqual([]);
    expect(cleared.previous).toMatchObject({ tracks: 2 });
    await patchLibrarySession(dir, grants, { rows: [row('z', 'Later')], removed: [] });
    const restored = await restorePreviousSession(dir, grants);
    expect(restored.session?.rows.map((r) => r.draft.title?.value)).toEqual(['One', 'Deux']);
    // The journal of the emptied library went with it into the kept file, not into this one.
    await patchLibrarySession(dir, grants, { rows: [row('a', 'Uno')], removed: [] });
    expect(await titles(dir)).toEqual(['a:Uno', 'b:Deux']);
    expect((await readHeader(previousPath(dir)))?.ids).toEqual(['z']);
  });
});
