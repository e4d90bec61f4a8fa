#!/usr/bin/env node
// `npm run check:electron` (CI runs it): fails, in one line saying what to upgrade, when the
// Electron the app is built on is no longer supported. Electron supports the latest three stable
// majors (https://www.electronjs.org/docs/latest/tutorial/electron-timelines); the latest is
// asked of the npm registry (`npm view electron dist-tags`).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** How many stable majors Electron supports at once. */
export const SUPPORTED_MAJORS = 3;

/** The verdict for the app's Electron `pinned` (a version) when `latest` is the newest stable. */
export function supportVerdict(pinned, latest) {
  const major = (version) => Number(/^\D*(\d+)/.exec(version)?.[1]);
  const [ours, newest] = [major(pinned), major(latest)];
  if (!Number.isInteger(ours) || !Number.isInteger(newest)) {
    return { ok: false, line: `cannot tell the Electron majors of ${pinned} and ${latest}` };
  }
  const oldest = newest - SUPPORTED_MAJORS + 1;
  if (ours >= oldest) {
    return { ok: true, line: `Electron ${ours} is supported (supported: ${oldest}–${newest})` };
  }
  return {
    ok: false,
    line: `Electron ${ours} is out of support (supported: ${oldest}–${newest}): upgrade with npm install --save-dev electron@^${latest}`,
  };
}

async function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const installed = JSON.parse(
    await readFile(`${root}node_modules/electron/package.json`, 'utf8'),
  ).version;
  const { stdout } = await promisify(execFile)('npm', ['view', 'electron', 'dist-tags', '--json'], {
    cwd: root,
  });
  const verdict = supportVerdict(installed, JSON.parse(stdout).latest);
  (verdict.ok ? console.log : console.error)(`check:electron: ${verdict.line}`);
  process.exitCode = verdict.ok ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
