/**
 * The library survives kill -9 at any moment of a save (#20): a child saves patch after patch
 * (appends, compactions, shrinking saves that keep the previous library) and is killed at
 * varying points; the library loads every time, with every save it acknowledged and at most the
 * one in flight beyond.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { FileGrants } from '../../../src-main/core/files/file-grants.js';
import { loadLibrarySession } from '../../../src-main/core/library/library-session.js';
import { readHeader } from '../../../src-main/core/library/session-base.js';

const CHILD = fileURLToPath(new URL('../../support/library-save-child.ts', import.meta.url));

/** Runs the child from save `start` until it has acknowledged `saves` saves, then kills it. */
function saveThenKill(dataDir: string, start: number, saves: number): Promise<number> {
  // node --import tsx (rather than npx tsx) so that the process we SIGKILL is the saver itself.
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dataDir, String(start)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let last = start - 1;
  createInterface({ input: child.stdout! }).on('line', (text) => {
    last = Number(text.split(' ')[1]);
    if (last >= start + saves - 1) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.on('exit', () => resolve(last)));
}

describe('the library saved by patches, killed mid-save', () => {
  const homes: string[] = [];
  afterAll(() => Promise.all(homes.map((home) => rm(home, { recursive: true, force: true }))));

  it('loads after every kill with each acknowledged save, then goes on saving', async () => {
    const home = await mkdtemp(join(tmpdir(), 'courier-library-crash-'));
    homes.push(home);
    let start = 0;
    const keptRows: number[] = [];
    // Different counts land the kill on appends, compactions and shrinking saves alike.
    for (const saves of [37, 23, 61, 11]) {
      const acknowledged = await saveThenKill(home, start, saves);
      const loaded = await loadLibrarySession(home, new FileGrants());
      const rows = loaded.session!.rows;
      const counter = Number(rows.find((r) => r.id === 'counter')!.draft.title!.value);
      expect(counter).toBeGreaterThanOrEqual(acknowledged);
      expect(counter).toBeLessThanOrEqual(acknowledged + 1);
      // Every row the saves up to the counter left is there, and no other.
      const expected = new Set(['counter']);
      for (let i = 0; i <= counter; i++) {
        if (i % 10 === 9) expected.delete(`r${i - 9}`);
        else expected.add(`r${i}`);
      }
      expect(new Set(rows.map((r) => r.id))).toEqual(expected);
      keptRows.push((await readHeader(join(home, 'library', 'session.previous.jsonl')))!.rows);
      start = counter + 1;
    }
    // Each run's shrinking saves kept the library before them, whole and readable.
    expect(keptRows.every((n, i) => n > (keptRows[i - 1] ?? 0))).toBe(true);
  });
});
