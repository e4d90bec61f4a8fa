/**
 * `npm run bench:library-save -- --tracks 100000`: main's side of saving the library. Over a copy
 * of the saved library `bench:reopen` made, through the IPC router as the app calls it: a reopen
 * (every page asked for, every file checked), then a bulk edit of `--edit` rows sent as the
 * renderer sends it (patches of `patchRowLimit` rows), then edits until the journal is folded into
 * the base. For each stage, the longest pause of main's event loop (the app's main process, or
 * the browser host, answers nothing else meanwhile) and how long it took.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';

import { patchRowLimit } from '../../src-main/core/library/library-patch.js';
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
    // Sent to the window as Electron's IPC sends it: serialised on main's thread.
    serialize(answer);
    if (!answer.ok) throw new Error(`${channel}: ${answer.error.message}`);
    return answer.value;
  };
  // Main's event loop ticks every millisecond when free: a longer gap between ticks is a pause.
  // On a busy machine a gap is also time the process waited for a core; the CPU the process used
  // in the gap tells the two apart (work of main's thread at most; GC helpers count too).
  let longest = { wall: 0, cpu: 0 };
  let mostCpu = 0;
  let last = { wall: performance.now(), cpu: process.cpuUsage() };
  const tick = setInterval(() => {
    const now = { wall: performance.now(), cpu: process.cpuUsage() };
    const wall = now.wall - last.wall;
    const cpu = (now.cpu.user + now.cpu.system - last.cpu.user - last.cpu.system) / 1000;
    if (wall > longest.wall) longest = { wall, cpu };
    mostCpu = Math.max(mostCpu, cpu);
    last = now;
  }, 1);
  const stage = async (name: string, work: () => Promise<void>) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    longest = { wall: 0, cpu: 0 };
    mostCpu = 0;
    const started = performance.now();
    await work();
    const took = performance.now() - started;
    console.log(
      `${name.padEnd(44)} ${(took / 1000).toFixed(2).padStart(7)} s; longest pause of main ` +
        `${longest.wall.toFixed(0).padStart(4)} ms (${longest.cpu.toFixed(0)} ms of CPU in it), ` +
        `most CPU in one pause ${mostCpu.toFixed(0)} ms`,
    );
  };

  // The rows the bulk edits change: in the app the renderer holds every row, in another process
  // (the window), so main's heap, and its collections, do not hold the others here either.
  let rows: Row[] = [];
  let received = 0;
  let loaded = { total: 0, load: '' };
  await stage(`reopen: first page (${tracks} tracks)`, async () => {
    const answer = await call<{ session: { rows: Row[] }; total: number; load: string }>(
      'library:load',
      {},
    );
    rows = answer.session.rows.slice(0, edit);
    received = answer.session.rows.length;
    loaded = answer;
  });
  await stage('reopen: the other pages', async () => {
    while (received < loaded.total) {
      const page = await call<{ rows: Row[] }>('library:rows', {
        load: loaded.load,
        offset: received,
      });
      received += page.rows.length;
      if (rows.length < edit) rows.push(...page.rows.slice(0, edit - rows.length));
    }
  });
  await stage('reopen: files checked', () => services.grants.checked());

  // The base is rewritten by a fold (whichever name it has: the earlier versions' too).
  const baseWritten = async () => {
    const library = join(home, 'library');
    const names = (await readdir(library)).filter((name) => /^session\.jsonl?$/.test(name));
    const times = await Promise.all(names.map((name) => stat(join(library, name))));
    return Math.max(0, ...times.map((info) => info.mtimeMs));
  };
  let round = 0;
  const bulkEdit = async (count: number) => {
    round++;
    const edited = rows.slice(0, count).map((row) => ({
      ...row,
      draft: { ...row.draft, title: { value: `Edit ${round}`, source: { kind: 'manual' } } },
    }));
    for (let i = 0; i < edited.length; i += patchRowLimit) {
      const rows = edited.slice(i, i + patchRowLimit);
      await call('library:patch', { patch: { rows, removed: [] } });
    }
  };
  await stage(`save: bulk edit of ${Math.min(edit, tracks)} rows`, () => bulkEdit(edit));
  await stage('save: edits until the journal is folded in', async () => {
    const before = await baseWritten();
    // Each save queues behind a fold in progress: the base rewritten, a fold has run.
    while ((await baseWritten()) === before) await bulkEdit(Math.min(edit, tracks));
  });
  clearInterval(tick);
} finally {
  await rm(home, { recursive: true, force: true });
}
