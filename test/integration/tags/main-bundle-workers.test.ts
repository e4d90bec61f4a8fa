/**
 * The app's scan workers (#19): `npm run build:main` puts the tag-scan worker beside the
 * Electron main bundle, where core's worker lanes look for it (`./scan-worker.js` from
 * main.cjs's own URL), and that built worker, loaded under Node as the app loads it, reads the
 * corpus exactly as core does in this process — so a scan in the app runs on worker threads as
 * it does in the CLI instead of falling back to the main thread. The same for the worker that
 * folds a library's journal, and the one that inspects picked files (#20).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

import { beforeAll, describe, expect, it } from 'vitest';

import { FileGrants } from '../../../src-main/core/files/file-grants.js';
import { type Inspected, inspectFile } from '../../../src-main/core/files/file-inspection.js';
import {
  journalPath,
  loadLibrarySession,
  patchLibrarySession,
  saveLibrarySession,
  sessionPath,
} from '../../../src-main/core/library/library-session.js';
import type { FileReadResult } from '../../../src-main/core/model/read-result.js';
import { readTrackFiles } from '../../../src-main/core/tags/read-track-file.js';
import { corpusRoot } from '../../support/corpus-oracle.js';
import { sessionRow } from '../../support/session-rows.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'dist', 'main', 'main.cjs');

describe('the scan worker of the Electron main bundle', () => {
  beforeAll(async () => {
    await promisify(execFile)(process.execPath, ['scripts/build-main.mjs'], {
      cwd: ROOT,
      timeout: 120_000,
    });
  }, 180_000);

  it('is built where the main bundle looks for it', () => {
    for (const name of ['scan-worker', 'duplicates-worker', 'fold-worker', 'inspect-worker']) {
      expect(existsSync(fileURLToPath(new URL(`./${name}.js`, pathToFileURL(MAIN))))).toBe(true);
    }
  });

  it('reads files as core does, on a worker thread', async () => {
    const paths = (await readdir(corpusRoot))
      .filter((name) => !name.startsWith('.'))
      .sort()
      .slice(0, 24);
    const worker = new Worker(new URL('./scan-worker.js', pathToFileURL(MAIN)));
    try {
      const reply = new Promise<{ id: number; output?: FileReadResult[]; error?: string }>(
        (resolve, reject) => {
          worker.on('message', resolve);
          worker.on('error', reject);
        },
      );
      worker.postMessage({ id: 1, input: { root: corpusRoot, paths, concurrency: 4 } });
      const { id, output, error } = await reply;
      expect(error).toBeUndefined();
      expect(id).toBe(1);
      expect(output).toEqual(await readTrackFiles(corpusRoot, paths, 4));
    } finally {
      await worker.terminate();
    }
  });

  it("folds a library's journal into its base on a worker thread, as core does", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'courier-fold-worker-'));
    try {
      const grants = new FileGrants();
      await saveLibrarySession(dir, grants, {
        version: 1,
        rows: [sessionRow('a', 'One'), sessionRow('b', 'Two')],
        ignored: [],
      });
      await patchLibrarySession(dir, grants, { rows: [sessionRow('b', 'Deux')], removed: [] });
      expect((await stat(journalPath(dir))).size).toBeGreaterThan(0);
      const worker = new Worker(new URL('./fold-worker.js', pathToFileURL(MAIN)));
      try {
        const reply = new Promise<{ id: number; output?: unknown; error?: string }>(
          (resolve, reject) => {
            worker.on('message', resolve);
            worker.on('error', reject);
          },
        );
        worker.postMessage({ id: 1, input: dir });
        const { output, error } = await reply;
        expect(error).toBeUndefined();
        expect(output).toEqual({ baseBytes: (await stat(sessionPath(dir))).size });
      } finally {
        await worker.terminate();
      }
      // The edit is in the base now, and the journal empty.
      expect(await readFile(sessionPath(dir), 'utf8')).toContain('"Deux"');
      expect((await stat(journalPath(dir))).size).toBe(0);
      const loaded = await loadLibrarySession(dir, new FileGrants());
      expect(loaded.session?.rows.map((r) => r.draft.title?.value)).toEqual(['One', 'Deux']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('inspects picked files on a worker thread, as core does', async () => {
    const paths = (await readdir(corpusRoot))
      .filter((name) => !name.startsWith('.'))
      .sort()
      .slice(0, 6)
      .map((name) => join(corpusRoot, name));
    const places = await Promise.all(
      paths.map(async (path) => {
        const info = await stat(path);
        return { path, claim: { size: info.size, lastModified: Math.trunc(info.mtimeMs) } };
      }),
    );
    // One place that is not the file the page saw: a day older.
    places.push({ ...places[0]!, claim: { ...places[0]!.claim, lastModified: 0 } });
    const worker = new Worker(new URL('./inspect-worker.js', pathToFileURL(MAIN)));
    try {
      const reply = new Promise<{ id: number; output?: Inspected[]; error?: string }>(
        (resolve, reject) => {
          worker.on('message', resolve);
          worker.on('error', reject);
        },
      );
      worker.postMessage({ id: 1, input: places });
      const { output, error } = await reply;
      expect(error).toBeUndefined();
      expect(output).toEqual(places.map(inspectFile));
      expect(output!.filter((p) => p.found && p.proof)).toHaveLength(paths.length);
    } finally {
      await worker.terminate();
    }
  });
});
