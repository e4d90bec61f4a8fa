/**
 * How a json delivery behaves as the catalog grows: `measureDeliveryScale(tracks)` delivers that
 * many tiny tagged MP3s to a sandbox whose tokens last `tokenLifetimeMs` (60 s by default, so a
 * long delivery outlives several), through the one delivery service as `courier deliver` and the
 * app do, and kills the delivering process with SIGKILL half way through the requests. A second
 * process resumes it. Measured:
 *
 * - requests sent (every attempt, from the record) against those planned;
 * - token requests of each process (one per lifetime used, plus one per process start);
 * - the cost of persisting one batch transition near the start and near the end (it must not grow
 *   with the requests already recorded), and what one rewrite of the whole record costs;
 * - each process's peak RSS;
 * - History (`DeliveryService.history()`) and Transfers (`active()`) opened during and after the
 *   delivery, serialised as the IPC sends them; and History's list on its own over one record of
 *   that many requests: its bytes, main's time to build it, the renderer's to parse it (it must
 *   not carry the requests' answers, fetched when a delivery is opened);
 * - how long the resume takes to plan (from `start` to the run under way).
 *
 * Masters are generated once under `/tmp/courier-scale-masters-<tracks>` and reused. Run it
 * alone: `tsx scripts/bench/delivery-scale.ts --tracks 10000`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';

import {
  type DeliveryRecord,
  DeliveryStore,
} from '../../src-main/core/delivery/delivery-record.js';
import { DeliveryService } from '../../src-main/core/delivery/delivery-service.js';
import type { DeliveryEvent } from '../../src-main/core/delivery/run-delivery.js';
import { startSandbox } from '../../src-main/core/sandbox/index.js';
import { createServices } from '../../src-main/core/services.js';
import {
  BENCH_PROFILE,
  benchServices,
  generateMasters,
  sandboxInfoOfParent,
  sandboxRequests,
} from './sandbox-delivery.js';

const SELF = fileURLToPath(import.meta.url);

/** Batch transitions averaged for the "start" and "end" persistence figures. */
const SAMPLE = 50;

/** What `measureDeliveryScale` finds. */
export interface DeliveryScaleReport {
  tracks: number;
  /** Requests planned, and sent (every attempt: the one in flight at the kill counts twice). */
  requestsPlanned: number;
  requests: number;
  state: string;
  error?: string;
  tokenLifetimeMs: number;
  /** Token requests of the killed process and of the one that resumed. */
  tokenRequests: { killed: number; resumed: number; total: number };
  /** Seconds each process spent ingesting (the span the tokens had to cover). */
  ingestSeconds: { killed: number; resumed: number };
  /** 401 answers among the sandbox's last 1,000 logged requests (renewal ahead of expiry: 0). */
  unauthorized: number;
  /** Median ms to persist one batch transition: first batches of the run, last ones. */
  persistMsPerBatch: { start: number; end: number };
  /** One rewrite of the whole record at the end (what every transition cost before journals). */
  fullSaveMs: number;
  /**
   * The same, on its own (no delivery running beside it): a record of this many requests with
   * answers the sandbox's size, each request's two transitions persisted in turn; median ms per
   * request over its first and last 50.
   */
  persistAloneMsPerBatch: { start: number; end: number };
  peakRssMb: { killed: number; resumed: number };
  historyOpenMs: { during: number; after: number };
  transfersOpenMs: { during: number; after: number };
  /** History's list on its own over one delivery of this many requests (`measureHistoryList`). */
  historyList: HistoryListReport;
  /** From the resumed `start` to the run under way: find the record, check files, snapshot. */
  resumePlanMs: number;
  /** Seconds from the first start to the end (kill and restart included). */
  totalSeconds: number;
}

interface ChildLine {
  kind: 'half' | 'final';
  tokenRequests: number;
  ingestSeconds: number;
  persistStartMs?: number;
  persistEndMs?: number;
  fullSaveMs?: number;
  historyOpenMs: number;
  transfersOpenMs: number;
  resumePlanMs?: number;
  requests?: number;
  requestsPlanned?: number;
  state?: string;
  error?: string;
  maxRssMiB: number;
}

/** The median: a machine shared with other work makes a few fsyncs wait far longer. */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
};

/** Times `work` in ms. */
async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * The delivering side: `--scale-child first|resume DIR HOME`. `first` prints a `half` line once
 * half the requests are accepted (the parent kills it then); `resume` prints a `final` line.
 */
async function child(): Promise<void> {
  const at = process.argv.indexOf('--scale-child');
  const [role, dir, home] = process.argv.slice(at + 1) as ['first' | 'resume', string, string];
  const info = sandboxInfoOfParent();
  const services = await benchServices(home, info);
  const trace = memoryTrace(role);
  const persists: number[] = [];
  let fullSaveMs = 0;
  const { saveBatch, save } = DeliveryStore.prototype;
  DeliveryStore.prototype.saveBatch = async function (this: DeliveryStore, ...args) {
    const started = performance.now();
    await saveBatch.apply(this, args);
    persists.push(performance.now() - started);
  };
  DeliveryStore.prototype.save = async function (this: DeliveryStore, ...args) {
    const started = performance.now();
    await save.apply(this, args);
    fullSaveMs = performance.now() - started;
  };
  let accepted = 0;
  let planned = 0;
  let ingestStarted = 0;
  let onHalf: (() => void) | undefined;
  const service = new DeliveryService(
    services,
    {
      event(_id, _label, event) {
        trace?.event(event);
        if (event.type === 'phase' && event.phase === 'ingest') ingestStarted = performance.now();
        if (event.type === 'batch' && event.state === 'accepted') {
          accepted++;
          if (accepted === Math.ceil(planned / 2)) onHalf?.();
        }
      },
    },
    `bench:scale ${role}`,
  );
  const open = async () => ({
    history: await timed(async () => JSON.stringify(await service.history())),
    transfers: await timed(() => JSON.stringify(service.active())),
  });
  const request = {
    profile: BENCH_PROFILE,
    catalogId: info.catalogs[0]!.id,
    mode: 'json' as const,
    source: { kind: 'folder' as const, dir },
  };
  const { api } = await services.connections.get(BENCH_PROFILE);
  const ingestSeconds = () => (ingestStarted ? (performance.now() - ingestStarted) / 1000 : 0);
  const started = performance.now();
  const run = await service.start(request, { resumeSameCommand: true });
  const resumePlanMs = performance.now() - started;
  trace?.mark('planned');
  if (process.env.COURIER_MEM_PLAN_ONLY) process.exit(0);
  const record = (await service.store.loadHeader(run.id))!;
  planned = record.batches.length;
  accepted = record.batches.filter((b) => b.state === 'accepted').length;
  if (role === 'first') {
    await new Promise<void>((resolve) => (onHalf = resolve));
    trace?.mark('half');
    const opened = await open();
    trace?.mark('History and Transfers opened');
    const line: ChildLine = {
      kind: 'half',
      tokenRequests: api.tokenRequests,
      ingestSeconds: ingestSeconds(),
      persistStartMs: median(persists.slice(0, SAMPLE)),
      historyOpenMs: opened.history,
      transfersOpenMs: opened.transfers,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    await run.done; // killed before it gets here
    return;
  }
  const final = await run.done;
  trace?.mark('done');
  trace?.stop();
  const opened = await open();
  const line: ChildLine = {
    kind: 'final',
    tokenRequests: api.tokenRequests,
    ingestSeconds: ingestSeconds(),
    persistEndMs: median(persists.slice(-SAMPLE)),
    fullSaveMs,
    historyOpenMs: opened.history,
    transfersOpenMs: opened.transfers,
    resumePlanMs,
    requests: final.batches.reduce((n, b) => n + b.attempts, 0),
    requestsPlanned: final.batches.length,
    state: final.state,
    ...(final.error ? { error: final.error } : {}),
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  process.exit(0);
}

/**
 * `COURIER_MEM_TRACE=1`: each delivering child logs its memory to stderr at the end of planning,
 * at each phase and every tenth of the requests, with the peak RSS a 50 ms sampler saw since the
 * last line and overall (and the phase it was in). Diagnostics beside it:
 * `COURIER_MEM_GC=1` with `NODE_OPTIONS=--expose-gc` adds the heap left after a collection at
 * each line (what is live, not what the collector let pile up); `COURIER_MEM_SNAPSHOT=<label>[,…]`
 * writes a heap snapshot at those lines (e.g. `end of confirm`); `COURIER_MEM_PLAN_ONLY=1` ends
 * the first child once the delivery is planned (the parent then reports that it ended early).
 */
function memoryTrace(role: string) {
  if (!process.env.COURIER_MEM_TRACE) return undefined;
  const mb = (n: number) => Math.round(n / 1048576);
  let phase = 'plan';
  let peak = { rss: 0, phase };
  let since = 0;
  let batches = 0;
  let total = 0;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak.rss) peak = { rss, phase };
    if (rss > since) since = rss;
  };
  const timer = setInterval(sample, 50);
  const mark = (label: string) => {
    sample();
    const gc = process.env.COURIER_MEM_GC ? (globalThis as { gc?: () => void }).gc : undefined;
    const before = process.memoryUsage();
    gc?.();
    const after = gc ? process.memoryUsage() : undefined;
    console.error(
      `mem ${role} ${label}: rss ${mb(before.rss)} (peak since last ${mb(since)}, max ${mb(process.resourceUsage().maxRSS * 1024)}) heap ${mb(before.heapUsed)}/${mb(before.heapTotal)}${after ? ` (after gc ${mb(after.heapUsed)}, rss ${mb(after.rss)})` : ''} ext ${mb(before.external)} ab ${mb(before.arrayBuffers)}; peak rss ${mb(peak.rss)} in ${peak.phase}`,
    );
    since = 0;
    if (process.env.COURIER_MEM_SNAPSHOT?.split(',').includes(label)) {
      console.error(`heap snapshot: ${writeHeapSnapshot()}`);
    }
  };
  return {
    mark,
    stop: () => clearInterval(timer),
    event(event: DeliveryEvent) {
      if (event.type === 'phase') {
        mark(`end of ${phase}`);
        phase = event.phase;
        if (event.batches) total = event.batches;
      }
      if (event.type === 'batch' && event.state === 'accepted' && total) {
        batches++;
        if (batches % Math.ceil(total / 10) === 0) mark(`ingest ${batches}/${total}`);
      }
    },
  };
}

/**
 * This file bundled as the CLI ships (`bundleWithWorkers`), in a folder of the checkout's
 * node_modules/.cache (the keychain's native module is found from there): the delivering
 * processes are measured as `courier deliver` runs, not as tsx runs TypeScript, which holds some
 * 50 MiB more and reads tags without the CLI's music-metadata patches.
 */
async function bundleChild(): Promise<{ script: string; remove: () => Promise<void> }> {
  const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'delivery-scale-'));
  // Loaded at run time, so that the bundle does not hold courier.mjs (whose entry would run).
  const courier = new URL('../courier.mjs', import.meta.url).href;
  const { bundleWithWorkers } = (await import(courier)) as typeof import('../courier.mjs');
  await bundleWithWorkers(dir, SELF, { sourcemap: false });
  return {
    script: join(dir, 'delivery-scale.js'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Starts the bundled `script` as a child; resolves each JSON line it prints to `onLine`. */
function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: ChildLine, proc: ChildProcess) => void,
): Promise<number | null> {
  const proc = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  createInterface({ input: proc.stdout! }).on('line', (text) => {
    if (text.startsWith('{')) onLine(JSON.parse(text) as ChildLine, proc);
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('close', (code) => resolve(code));
  });
}

/** A json record of `batches` requests of 25 tracks, every one pending (no files: none are read). */
function benchRecord(home: string, batches: number, id = 'persist'): DeliveryRecord {
  return {
    version: 1,
    id,
    identity: id,
    state: 'ingesting',
    profile: 'Bench',
    environment: 'development',
    bucket: 'bench',
    catalogId: 'catalog',
    mode: 'json',
    dir: home,
    folder: 'bench',
    options: {
      ingestion_id: 'bench',
      overwrite_audio_file: true,
      delete_delivered_file: true,
      media_fetch_type: 's3',
    },
    files: [],
    batches: Array.from({ length: batches }, (_, index) => ({
      index,
      outerIds: Array.from({ length: 25 }, (_, j) => `GBABC2${String(index * 25 + j)}`),
      keys: Array.from({ length: 25 }, (_, j) => `delivery/audio/bench/${index}/${j}.mp3`),
      state: 'pending',
      attempts: 0,
    })),
    createdAt: '',
    updatedAt: '',
    runs: 1,
    durations: { uploadMs: 0, confirmMs: 0, ingestMs: 0 },
    bytes: { total: 0, sent: 0 },
  } as DeliveryRecord;
}

/** Marks one batch accepted with an answer the size of the sandbox's (25 entries). */
function accept(batch: DeliveryRecord['batches'][number]): void {
  batch.state = 'accepted';
  batch.answeredAt = new Date().toISOString();
  batch.response = {
    status: 200,
    body: {
      ingestion_id: 'bench',
      catalog_id: 'catalog',
      mode: 'json',
      count: 25,
      entries: batch.outerIds.map((outer_id) => ({
        outer_id,
        state: 'stored',
        audio_key: `catalogs/catalog/${outer_id}/audio.mp3`,
      })),
    },
  };
}

/**
 * Persists `batches` requests' `sent` and `accepted` (with a 25-entry answer) through a
 * `DeliveryStore` on its own, and gives the median ms per request of the first and last 50.
 */
export async function measurePersistence(batches: number): Promise<{ start: number; end: number }> {
  const home = await mkdtemp(join(tmpdir(), 'courier-bench-persist-'));
  try {
    const store = new DeliveryStore(home);
    const record = benchRecord(home, batches);
    await store.save(record);
    const per: number[] = [];
    for (const batch of record.batches) {
      const started = performance.now();
      batch.state = 'sent';
      batch.attempts++;
      batch.sentAt = new Date().toISOString();
      await store.saveBatch(record, batch);
      accept(batch);
      await store.saveBatch(record, batch);
      per.push(performance.now() - started);
    }
    return { start: median(per.slice(0, SAMPLE)), end: median(per.slice(-SAMPLE)) };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** What opening History costs over one delivery of many requests (`measureHistoryList`). */
export interface HistoryListReport {
  batches: number;
  /** Bytes of History's list as the IPC sends it (JSON). */
  listBytes: number;
  /** Median ms: main builds the list and serialises it; the renderer parses it. */
  listMs: number;
  parseMs: number;
  /** Opening the delivery: its first page of 100 requests with their answers, bytes and ms. */
  detailBytes: number;
  detailMs: number;
}

/**
 * Records one accepted delivery of `batches` requests (half the answers compacted into the main
 * file, half in its journal, as a run leaves them) and times History's list over it: built and
 * serialised by main as the IPC sends it, and parsed as the renderer receives it.
 */
export async function measureHistoryList(batches: number): Promise<HistoryListReport> {
  const home = await mkdtemp(join(tmpdir(), 'courier-bench-history-'));
  try {
    const store = new DeliveryStore(home);
    const record = benchRecord(home, batches, '20260101-000000-abcdef');
    const half = Math.floor(batches / 2);
    for (const batch of record.batches.slice(0, half)) accept(batch);
    await store.save(record);
    for (const batch of record.batches.slice(half)) {
      accept(batch);
      await store.saveBatch(record, batch);
    }
    const service = new DeliveryService(createServices({ COURIER_HOME: home }), {}, 'bench');
    const list: number[] = [];
    const parse: number[] = [];
    let text = '';
    for (let i = 0; i < 5; i++) {
      list.push(await timed(async () => (text = JSON.stringify(await service.history()))));
      parse.push(await timed(() => JSON.parse(text)));
    }
    const listBytes = Buffer.byteLength(text);
    const detail: number[] = [];
    for (let i = 0; i < 5; i++) {
      detail.push(
        await timed(async () => {
          text = JSON.stringify(await service.detail(record.id, { limit: 100 }));
          JSON.parse(text);
        }),
      );
    }
    return {
      batches,
      listBytes,
      listMs: median(list),
      parseMs: median(parse),
      detailBytes: Buffer.byteLength(text),
      detailMs: median(detail),
    };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Generated masters for `tracks`, made once and kept under /tmp. */
async function mastersFor(tracks: number): Promise<string> {
  const dir = join(tmpdir(), `courier-scale-masters-${tracks}`);
  if (existsSync(`${dir}.complete`)) return dir;
  await rm(dir, { recursive: true, force: true });
  const work = await mkdtemp(join(tmpdir(), 'courier-scale-template-'));
  try {
    await generateMasters(work, dir, tracks);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  await writeFile(`${dir}.complete`, `${tracks}\n`);
  return dir;
}

/**
 * Delivers `tracks` tracks in json mode to a fresh sandbox, killing the delivering process half
 * way and resuming it, and reports what it cost (see the file's comment).
 */
export async function measureDeliveryScale(
  tracks: number,
  options: { tokenLifetimeMs?: number; log?: (line: string) => void } = {},
): Promise<DeliveryScaleReport> {
  const tokenLifetimeMs = options.tokenLifetimeMs ?? 60_000;
  const log = options.log ?? ((line: string) => console.error(line));
  log(`delivery-scale: masters for ${tracks} track(s)…`);
  const dir = await mastersFor(tracks);
  const work = await mkdtemp(join(tmpdir(), 'courier-bench-scale-'));
  const sandbox = await startSandbox({
    dataDir: join(work, 'sandbox'),
    tokenLifetimeMs,
    timings: { analysisMs: 600_000, productIntervalMs: 3_600_000 },
  });
  const env = { COURIER_BENCH: JSON.stringify(sandbox.info) };
  const home = join(work, 'home');
  const child = await bundleChild();
  try {
    const started = performance.now();
    log('delivery-scale: delivering; SIGKILL at half the requests…');
    let half: ChildLine | undefined;
    await startChild(child.script, ['--scale-child', 'first', dir, home], env, (line, proc) => {
      half = line;
      proc.kill('SIGKILL');
    });
    if (!half) throw new Error('the first delivering process ended before half its requests');
    log('delivery-scale: resuming…');
    let final: ChildLine | undefined;
    const code = await startChild(
      child.script,
      ['--scale-child', 'resume', dir, home],
      env,
      (line) => {
        final = line;
      },
    );
    if (!final) throw new Error(`the resuming process exited ${code} without a report`);
    const logged = await sandboxRequests(sandbox.info);
    const planned = final.requestsPlanned ?? Math.ceil(tracks / 25);
    const persistAlone = await measurePersistence(planned);
    const historyList = await measureHistoryList(planned);
    return {
      tracks,
      requestsPlanned: final.requestsPlanned ?? 0,
      requests: final.requests ?? 0,
      state: final.state ?? '?',
      ...(final.error ? { error: final.error } : {}),
      tokenLifetimeMs,
      tokenRequests: {
        killed: half.tokenRequests,
        resumed: final.tokenRequests,
        total: half.tokenRequests + final.tokenRequests,
      },
      ingestSeconds: { killed: half.ingestSeconds, resumed: final.ingestSeconds },
      unauthorized: logged.filter((r) => r.status === 401).length,
      persistMsPerBatch: { start: half.persistStartMs ?? 0, end: final.persistEndMs ?? 0 },
      fullSaveMs: final.fullSaveMs ?? 0,
      persistAloneMsPerBatch: persistAlone,
      peakRssMb: { killed: half.maxRssMiB, resumed: final.maxRssMiB },
      historyOpenMs: { during: half.historyOpenMs, after: final.historyOpenMs },
      transfersOpenMs: { during: half.transfersOpenMs, after: final.transfersOpenMs },
      historyList,
      resumePlanMs: final.resumePlanMs ?? 0,
      totalSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await sandbox.close();
    await rm(work, { recursive: true, force: true });
    await child.remove();
  }
}

/** The report as lines for a terminal. */
export function deliveryScaleText(r: DeliveryScaleReport): string {
  const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
  return [
    `tracks:               ${r.tracks} (${r.state}${r.error ? `: ${r.error}` : ''}, ${r.totalSeconds.toFixed(0)} s with a SIGKILL half way)`,
    `requests:             ${r.requests} sent for ${r.requestsPlanned} planned`,
    `token requests:       ${r.tokenRequests.total} (killed process ${r.tokenRequests.killed} over ${r.ingestSeconds.killed.toFixed(0)} s of ingest, resumed ${r.tokenRequests.resumed} over ${r.ingestSeconds.resumed.toFixed(0)} s; lifetime ${r.tokenLifetimeMs / 1000} s; 401s ${r.unauthorized})`,
    `persist per batch:    ${ms(r.persistMsPerBatch.start)} at the start, ${ms(r.persistMsPerBatch.end)} at the end (a whole-record rewrite: ${ms(r.fullSaveMs)})`,
    `  on its own:         ${ms(r.persistAloneMsPerBatch.start)} for the first requests, ${ms(r.persistAloneMsPerBatch.end)} for the last`,
    `peak RSS:             ${r.peakRssMb.killed.toFixed(0)} MiB (killed), ${r.peakRssMb.resumed.toFixed(0)} MiB (resumed)`,
    `History opens in:     ${ms(r.historyOpenMs.during)} during, ${ms(r.historyOpenMs.after)} after`,
    `Transfers opens in:   ${ms(r.transfersOpenMs.during)} during, ${ms(r.transfersOpenMs.after)} after`,
    `History's list:       ${r.historyList.listBytes} bytes for ${r.historyList.batches} requests, built in ${ms(r.historyList.listMs)}, parsed in ${ms(r.historyList.parseMs)}; a delivery opened: ${r.historyList.detailBytes} bytes in ${ms(r.historyList.detailMs)}`,
    `resume plans in:      ${ms(r.resumePlanMs)}`,
  ].join('\n');
}

if (process.argv.includes('--scale-child')) await child();
else if (process.argv.includes('--persist-only')) {
  const at = process.argv.indexOf('--batches');
  console.log(JSON.stringify(await measurePersistence(Number(process.argv[at + 1] ?? 4000))));
} else if (process.argv.includes('--history-only')) {
  const at = process.argv.indexOf('--batches');
  console.log(JSON.stringify(await measureHistoryList(Number(process.argv[at + 1] ?? 4000))));
} else if (process.argv[1] === SELF) {
  const at = process.argv.indexOf('--tracks');
  const tracks = Number(at >= 0 ? process.argv[at + 1] : 10_000);
  const report = await measureDeliveryScale(tracks);
  console.log(deliveryScaleText(report));
  console.log(JSON.stringify(report));
}
