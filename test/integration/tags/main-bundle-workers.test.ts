/**
 * The app's scan workers (#19): `npm run build:main` puts the tag-scan worker beside the
 * Electron main bundle, where core's worker lanes look for it (`./scan-worker.js` from
 * main.cjs's own URL), and that built worker, loaded under Node as the app loads it, reads the
 * corpus exactly as core does in this process — so a scan in the app runs on worker threads as
 * it does in the CLI instead of falling back to the main thread.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

import { beforeAll, describe, expect, it } from 'vitest';

import type { FileReadResult } from '../../../src-main/core/model/read-result.js';
import { readTrackFiles } from '../../../src-main/core/tags/read-track-file.js';
import { corpusRoot } from '../../support/corpus-oracle.js';

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
    for (const name of ['scan-worker', 'duplicates-worker']) {
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
});
