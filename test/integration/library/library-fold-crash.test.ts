/**
 * A fold of the journal into a large base survives kill -9 (#20): a child edits a 20,000-row
 * library 999 rows a save, and is killed while a fold is writing the new base; the library
 * loads every time with every save the child acknowledged, and at most the one in flight beyond,
 * and the half-written base the kill left is removed once it is plainly abandoned.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { FileGrants } from '../../../src-main/core/files/file-grants.js';
import {
  loadLibrarySession,
  saveLibrarySession,
} from '../../../src-main/core/library/library-session.js';
import { foldEdited, foldLibraryRows, foldRow } from '../../support/library-fold-child.js';

const CHILD = fileURLToPath(new URL('../../support/library-fold-child.ts', import.meta.url));

/**
 * Runs the child from save `start` and kills it once a fold is writing a new base (a temp file
 * beside the base); resolves with the last save it acknowledged and whether a fold was cut.
 */
function killMidFold(dataDir: string, start: number): Promise<{ last: number; cut: boolean }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dataDir, String(start)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let last = start - 1;
  let cut = false;
  createInterface({ input: child.stdout! }).on('line', (text) => {
    last = Number(text.split(' ')[1]);
  });
  const watch = setInterval(() => {
    void readdir(join(dataDir, 'library')).then((names) => {
      if (cut || !names.some((name) => name.endsWith('.tmp'))) return;
      cut = true;
      child.kill('SIGKILL');
    });
  }, 2);
  // Never more than a minute: a child that never folds fails the test below.
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('exit', () => {
      clearInterval(watch);
      clearTimeout(limit);
      resolve({ last, cut });
    }),
  );
}

/** The temp files in the library folder. */
const tempFiles = async (home: string) =>
  (await readdir(join(home, 'library'))).filter((name) => name.endsWith('.tmp'));

describe('the library journal folded into a large base, killed mid-fold', () => {
  const homes: string[] = [];
  afterAll(() => Promise.all(homes.map((home) => rm(home, { recursive: true, force: true }))));

  it('loads after every kill with each acknowledged edit', async () => {
    const home = await mkdtemp(join(tmpdir(), 'courier-fold-crash-'));
    homes.push(home);
    const rows = Array.from({ length: foldLibraryRows }, (_, i) => foldRow(`r${i}`, 'Read'));
    await saveLibrarySession(home, new FileGrants(), {
      version: 1,
      rows: [...rows, foldRow('counter', '-1')],
      ignored: [],
    });
    let start = 0;
    for (let run = 0; run < 3; run++) {
      const { last, cut } = await killMidFold(home, start);
      expect(cut).toBe(true);
      // The new base the fold was writing is left part way, a temp file as large as the library:
      // once nothing has written it for a minute, the next use of the library removes it.
      const temps = await tempFiles(home);
      expect(temps).toHaveLength(1);
      const loadedFresh = await loadLibrarySession(home, new FileGrants());
      expect(await tempFiles(home)).toEqual(temps);
      const aMinuteAgo = new Date(Date.now() - 61_000);
      for (const temp of temps) await utimes(join(home, 'library', temp), aMinuteAgo, aMinuteAgo);
      const loaded = (await loadLibrarySession(home, new FileGrants())).session!.rows;
      expect(await tempFiles(home)).toEqual([]);
      expect(loaded).toEqual(loadedFresh.session!.rows);
      const counter = Number(loaded.find((r) => r.id === 'counter')!.draft.title!.value);
      expect(counter).toBeGreaterThanOrEqual(last);
      expect(counter).toBeLessThanOrEqual(last + 1);
      // Each row has the title of the last save up to the counter that edited it.
      const expected = new Map(rows.map((r) => [r.id, 'Read']));
      for (let i = 0; i <= counter; i++)
        for (const id of foldEdited(i)) expected.set(id, `Save ${i}`);
      expect(loaded).toHaveLength(foldLibraryRows + 1);
      const wrong = loaded.filter(
        (r) => r.id !== 'counter' && r.draft.title?.value !== expected.get(r.id),
      );
      expect(wrong.map((r) => `${r.id}: ${r.draft.title?.value}`)).toEqual([]);
      start = counter + 1;
    }
  }, 240_000);
});
