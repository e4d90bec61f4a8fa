/**
 * `npm run bench:reopen -- --tracks 10000`: how long a reopened app (browser host, Chromium) takes
 * to show a saved library of that many tracks, and to finish checking its files on disk. The saved
 * library is made once from the generated catalog (`scale-catalog.ts`): tags read and the session
 * saved by core, as the app would have, and kept beside the catalog for the next run.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { FileGrants } from '../../src-main/core/files/file-grants.js';
import { listLocalFiles } from '../../src-main/core/files/local-files.js';
import {
  openLibrarySession,
  saveLibrarySession,
  sessionPath,
} from '../../src-main/core/library/library-session.js';
import type { LibrarySession, SessionRow } from '../../src-main/core/library/session-schema.js';
import { assignOuterIds } from '../../src-main/core/model/outer-id.js';
import { readTrackFile } from '../../src-main/core/tags/read-track-file.js';
import { launchChromium } from '../../test/support/chromium.js';
import { startWebHostProcess } from '../../test/support/web-host-process.js';
import { generateScaleCatalog } from './scale-catalog.js';

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const tracks = Number(flag('--tracks', '10000'));
const runs = Number(flag('--runs', '3'));
const root = process.env.BENCH_SCALE_DIR ?? join(homedir(), '.cache', 'courier-bench');

/**
 * A data directory holding the catalog's library as saved by the app, made once: from the one
 * an earlier version saved (one JSON document) when it is there, which opening it brings to the
 * current form (timed: what a user's first open after the update costs), else from the tags.
 */
async function savedHome(catalog: string): Promise<string> {
  const home = join(root, `reopen-home-v2-${tracks}`);
  if (existsSync(join(home, 'library', '.complete'))) return home;
  await rm(home, { recursive: true, force: true });
  const earlier = join(root, `reopen-home-${tracks}`);
  if (existsSync(join(earlier, 'library', '.complete'))) {
    await cp(earlier, home, { recursive: true });
    await rm(join(home, 'library', '.complete'));
    const started = performance.now();
    const opened = await openLibrarySession(home);
    for await (const row of opened.rows) void row;
    console.log(
      `a library saved as one document brought to the current form and read in ` +
        `${((performance.now() - started) / 1000).toFixed(2)} s`,
    );
    await cp(sessionPath(home), join(home, 'library', '.complete'));
    return home;
  }
  const grants = new FileGrants();
  const files = (await listLocalFiles(catalog)).filter((f) => f.kind === 'audio');
  const rows: SessionRow[] = new Array(files.length);
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const i = next++;
      const file = files[i]!;
      const granted = await grants.grant(file.localPath);
      const result = await readTrackFile(catalog, file.localPath);
      rows[i] = {
        id: granted.id,
        size: granted.size,
        lastModified: Math.trunc(granted.mtimeMs),
        status: result.draft ? 'ready' : 'unreadable',
        draft: result.draft ?? { file: result.file },
        original: result.draft,
        readFindings: result.findings,
        ...(result.audio ? { audio: result.audio } : {}),
      } as SessionRow;
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  const drafts = assignOuterIds(rows.map((row) => row.draft) as never);
  rows.forEach((row, i) => {
    if (row.status === 'ready') row.draft = row.original = drafts[i] as SessionRow['draft'];
  });
  const session: LibrarySession = { version: 1, rows, ignored: [] };
  await saveLibrarySession(home, grants, session);
  await cp(sessionPath(home), join(home, 'library', '.complete'));
  return home;
}

const catalog = await generateScaleCatalog(join(root, `scale-${tracks}`), tracks);
const home = await savedHome(catalog.dir);
console.log(`saved library of ${tracks} tracks: ${home}`);
const browser = await launchChromium();
try {
  for (let run = 0; run < runs; run++) {
    // A copy per run: a run's own saves don't change the next one's starting point.
    const data = await mkdtemp(join(tmpdir(), 'courier-bench-reopen-'));
    await cp(home, data, { recursive: true });
    const host = await startWebHostProcess(['--port', '0', '--root', catalog.dir], {
      COURIER_HOME: data,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const started = performance.now();
      await page.goto(host.url);
      await page.locator('[role="row"][data-row-id]').first().waitFor({ timeout: 600_000 });
      const shown = performance.now() - started;
      await page
        .getByTestId('library-summary')
        .getByText(new RegExp(`\\b(${tracks}|${tracks.toLocaleString('en-US')}) tracks`))
        .waitFor({ timeout: 600_000 });
      const all = performance.now() - started;
      await page.getByTestId('files-checking').waitFor({ state: 'detached', timeout: 600_000 });
      const checked = performance.now() - started;
      console.log(
        `run ${run + 1}: first rows ${(shown / 1000).toFixed(2)} s, all ${tracks} rows ` +
          `${(all / 1000).toFixed(2)} s, files checked ${(checked / 1000).toFixed(2)} s`,
      );
      await page.close();
    } finally {
      await host.stop();
      await rm(data, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}
