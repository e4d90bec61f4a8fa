/**
 * `npm run bench:reopen -- --tracks 10000`: how long a reopened app (browser host, Chromium) takes
 * to show a saved library of that many tracks, and to finish checking its files on disk. The saved
 * library is made once from the generated catalog (`scale-catalog.ts`): tags read and the session
 * saved by core, as the app would have, and kept beside the catalog for the next run.
 *
 * `--journal-mb N`: the library as quitting in the second after a long save leaves it, before the
 * fold that waits for saves to pause (or during it): N MB of saves in the journal beside the base
 * (every row's title edited, in the page's patches), which opening reads before the first row.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { FileGrants } from '../../src-main/core/files/file-grants.js';
import { listLocalFiles } from '../../src-main/core/files/local-files.js';
import { patchRowLimit } from '../../src-main/core/library/library-patch.js';
import {
  journalPath,
  openLibrarySession,
  patchLibrarySession,
  saveLibrarySession,
  sessionPath,
} from '../../src-main/core/library/library-session.js';
import {
  type LibrarySession,
  type SessionRow,
  storedRow,
} from '../../src-main/core/library/session-schema.js';
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
const journalMb = Number(flag('--journal-mb', '0'));

/**
 * Edits every row's title in `home`'s library, a patch of `patchRowLimit` rows at a time as the
 * page saves, until the journal holds `mb` MB; then exits at once (the fold waits for saves to
 * pause). Runs in a child process of its own (`--write-journal`), so that no fold follows.
 */
async function writeJournal(home: string, mb: number): Promise<never> {
  const opened = await openLibrarySession(home);
  const rows: SessionRow[] = [];
  for await (const { row } of opened.rows) rows.push(row);
  const grants = new FileGrants();
  for (let i = 0; i < rows.length; i += patchRowLimit) {
    const edited = rows.slice(i, i + patchRowLimit).map((row) =>
      storedRow({
        ...row,
        draft: {
          ...row.draft,
          title: { value: `${row.draft.title?.value ?? ''} ·`, source: { kind: 'manual' } },
        },
      }),
    );
    await patchLibrarySession(home, grants, { rows: edited, removed: [] });
    if ((await stat(journalPath(home))).size >= mb * 1024 * 1024) process.exit(0);
  }
  console.error(`bench:reopen: every row edited makes a journal under ${mb} MB`);
  process.exit(1);
}
if (process.argv.includes('--write-journal'))
  await writeJournal(flag('--write-journal', ''), journalMb);
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
const saved = await savedHome(catalog.dir);
console.log(`saved library of ${tracks} tracks: ${saved}`);
let home = saved;
if (journalMb > 0) {
  home = join(root, `reopen-home-v2-${tracks}-journal-${journalMb}`);
  const made = join(home, 'library', '.journal-complete');
  if (!existsSync(made)) {
    await rm(home, { recursive: true, force: true });
    await cp(saved, home, { recursive: true });
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, process.argv[1]!, ...process.argv.slice(2), '--write-journal', home],
      { stdio: 'inherit' },
    );
    if (child.status !== 0) process.exit(1);
    await writeFile(made, '');
  }
  const bytes = (path: string) => stat(path).then((info) => (info.size / 1024 / 1024).toFixed(0));
  console.log(
    `with ${await bytes(journalPath(home))} MB of saves in the journal beside a base of ` +
      `${await bytes(sessionPath(home))} MB`,
  );
}
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
