/**
 * `npm run bench:library-save -- --tracks 100000`: main's side of saving the library. Over a copy
 * of the saved library `bench:reopen` made, through the IPC router as the app calls it: a reopen
 * (every page asked for, every file checked), then a bulk edit of `--edit` rows sent as the
 * renderer sends it (patches of a thousand rows), then edits until the journal is folded into
 * the base. For each stage, the longest pause of main's event loop (the app's main process, or
 * the browser host, answers nothing else meanwhile) and how long it took.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { MemorySecretStore } from '../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../src-main/core/services.js';
import { createRouter } from '../../src-main/ipc/router.js';

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const tracks = Number(flag('--tracks', '10000'));
const edit = Number(flag('--edit', '10000'));
const root = process.env.BENCH_SCALE_DIR ?? join(homedir(), '.cache', 'courier-bench');
// The library `bench:reopen` saved (made by it first when missing); `--home` names another.
const saved = flag(
  '--home',
  [`reopen-home-v2-${tracks}`, `reopen-home-${tracks}`]
    .map((name) => join(root, name))
    .find((dir) => existsSync(join(dir, 'library', '.complete'))) ?? '',
);
if (!saved) throw new Error(`No saved library of ${tracks} tracks: run npm run bench:reopen first`);

type Row = { id: string; draft: { title?: { value: string; source: unknown } } };
type Answer<T> = { ok: true; value: T } | { ok: false; error: { message: string } };

const home = await mkdtemp(join(tmpdir(), 'courier-bench-library-save-'));
try {
  await cp(saved, home, { recursive: true });
  const services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
  const router = createRouter({ kind: 'electron', locate: async () => [] }, services);
  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const answer = (await router.dispatch(channel, request)) as Answer<T>;
    if (!answer.ok) throw new Error(`${channel}: ${answer.error.message}`);
    return answer.value;
  };
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const stage = async (name: string, work: () => Promise<void>) => {
    loop.reset();
    const started = performance.now();
    await work();
    const took = performance.now() - started;
    console.log(
      `${name.padEnd(44)} ${(took / 1000).toFixed(2).padStart(7)} s, longest pause of main ` +
        `${(loop.max / 1e6).toFixed(0).padStart(5)} ms`,
    );
  };

  let rows: Row[] = [];
  await stage(`reopen: first page (${tracks} tracks)`, async () => {
    const loaded = await call<{ session: { rows: Row[] }; total: number; load: string }>(
      'library:load',
      {},
    );
    rows = loaded.session.rows;
    await stage('reopen: the other pages', async () => {
      while (rows.length < loaded.total) {
        const page = await call<{ rows: Row[] }>('library:rows', {
          load: loaded.load,
          offset: rows.length,
        });
        rows.push(...page.rows);
      }
    });
  });
  await stage('reopen: files checked', () => services.grants.checked());

  const journal = join(home, 'library', 'session.journal');
  const journalBytes = () =>
    stat(journal).then(
      (s) => s.size,
      () => 0,
    );
  let round = 0;
  const bulkEdit = async (count: number) => {
    round++;
    const edited = rows.slice(0, count).map((row) => ({
      ...row,
      draft: { ...row.draft, title: { value: `Edit ${round}`, source: { kind: 'manual' } } },
    }));
    for (let i = 0; i < edited.length; i += 1000) {
      await call('library:patch', { patch: { rows: edited.slice(i, i + 1000), removed: [] } });
    }
  };
  await stage(`save: bulk edit of ${Math.min(edit, tracks)} rows`, () => bulkEdit(edit));
  await stage('save: edits until the journal is folded in', async () => {
    // Each save queues behind a fold in progress: once the journal empties, a fold has run.
    for (let before = await journalBytes(); ;) {
      await bulkEdit(Math.min(edit, tracks));
      const now = await journalBytes();
      if (now < before) break;
      before = now;
    }
    // The fold the last save started, if any, finished.
    await call('library:patch', { patch: { rows: [], removed: [] } });
  });
} finally {
  await rm(home, { recursive: true, force: true });
}
