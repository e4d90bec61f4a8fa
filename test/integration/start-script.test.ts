/**
 * `npm start` where Electron's binary is missing (our build machines, CI): one line that says so
 * and points to the browser host, exit 1, and no stack trace from Electron's own downloader.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
const pathFile = join(electronDir, 'path.txt');
const installed =
  existsSync(pathFile) && existsSync(join(electronDir, 'dist', readFileSync(pathFile, 'utf8')));
if (installed)
  console.warn('skipped: Electron’s binary is installed here, npm start would launch it');

describe.skipIf(installed)('npm start without the Electron binary', () => {
  it('says so in one line, pointing to npm run web', () => {
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], {
      cwd: root,
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      "Electron's binary is not installed here (ELECTRON_SKIP_BINARY_DOWNLOAD?): run `npm run web` to use Courier in a browser instead.",
    ]);
  });
});
