/**
 * `npm run bench:sync [-- --tracks N]` (issue #15, catalog-aware deliveries)
 *
 * Generates N (10,000 by default) tiny tagged MP3s with a metadata CSV, delivers them once in
 * json mode to a sandbox started for the run (set-up: timed, no target), then runs the same
 * command again, each time in a fresh child process through the one delivery service as
 * `courier deliver` does (`start` with `resumeSameCommand`):
 *
 * - nothing changed: must end in `NothingChangedError` in under 10 s, with no ingestion request
 *   (the sandbox's request log) and no file hashed (`hashedFileCount`);
 * - one title fixed in the metadata CSV: one request holding that track alone, with
 *   `overwrite_audio_file=false`, and nothing uploaded (metadata only);
 * - one title edited in a file's tags, then one master replaced by other audio: one request
 *   holding that track alone, one file uploaded (other bytes are new audio, see docs/ledger.md).
 *
 * Then the ledger alone, built directly through `CatalogLedger` in a temp dir: the median time
 * to record a batch of 25 (one append and fsync) into ledgers of 10,000 and 100,000 entries,
 * measured alternately, and their ratio (target: under 2, independent of size); the time to
 * open each, for information. Prints a report and `bench:sync: PASS`, or `FAIL (…)` and exits 1.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { GetObjectCommand } from '@aws-sdk/client-s3';

import type { DeliveryRecord } from '../../src-main/core/delivery/delivery-record.js';
import {
  DeliveryService,
  NothingChangedError,
} from '../../src-main/core/delivery/delivery-service.js';
import { hashedFileCount } from '../../src-main/core/files/file-fingerprint.js';
import { CatalogLedger, type LedgerEntry } from '../../src-main/core/ledger/catalog-ledger.js';
import { type SandboxInfo, startSandbox } from '../../src-main/core/sandbox/index.js';
import { createS3Client } from '../../src-main/core/storage/s3-client.js';
import { makeAudio, writeTags } from '../../test/support/audio-fixtures.js';
import {
  BENCH_PROFILE,
  benchServices,
  clearSandboxRequests,
  generateMasters,
  masterPath,
  masterTags,
  runChild,
  sandboxEntries,
  sandboxInfoOfParent,
  sandboxRequests,
} from './sandbox-delivery.js';

const SELF = fileURLToPath(import.meta.url);

/** The issue's targets. */
const NO_CHANGE_TARGET_S = 10;
const LEDGER_RATIO_TARGET = 2;
const LEDGER_SIZES = [10_000, 100_000] as const;
const LEDGER_BATCH = 25;
const LEDGER_ROUNDS = 50;

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** What one run of the command did, as the child reports it. */
interface RunReport {
  state: string;
  error?: string;
  /** From `start` to the end of the run (or to `NothingChangedError`). */
  seconds: number;
  /** CPU time of the whole child process (every thread), start-up included. */
  cpuSeconds: number;
  hashed: number;
  unchanged?: number;
  /** Files this run put in the bucket (confirmed there). */
  uploaded?: number;
  changes?: DeliveryRecord['changes'];
}

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** The delivering side: `sync.ts --child DIR HOME CSV`, the sandbox info in COURIER_BENCH. */
async function child(): Promise<void> {
  const [dir, home, csv] = process.argv.slice(process.argv.indexOf('--child') + 1) as [
    string,
    string,
    string,
  ];
  const info = sandboxInfoOfParent();
  const services = await benchServices(home, info);
  const deliveries = new DeliveryService(services, {}, 'bench:sync');
  const started = performance.now();
  const since = () => (performance.now() - started) / 1000;
  let report: RunReport;
  try {
    const run = await deliveries.start(
      {
        profile: BENCH_PROFILE,
        catalogId: info.catalogs[0]!.id,
        mode: 'json',
        source: { kind: 'folder', dir, metadataCsv: csv },
      },
      { resumeSameCommand: true },
    );
    const record = await run.done;
    report = {
      state: record.state,
      ...(record.error ? { error: record.error } : {}),
      seconds: since(),
      cpuSeconds: cpuSeconds(),
      hashed: hashedFileCount(),
      uploaded: record.files.filter((f) => f.state === 'confirmed').length,
      ...(record.changes ? { changes: record.changes } : {}),
    };
  } catch (error) {
    if (!(error instanceof NothingChangedError)) throw error;
    report = {
      state: 'unchanged',
      seconds: since(),
      cpuSeconds: cpuSeconds(),
      hashed: hashedFileCount(),
      unchanged: error.unchanged,
    };
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** One run of the command in a fresh process, with what the sandbox saw of it. */
interface Observed {
  run: RunReport;
  /** The child process from spawn to exit, start-up included. */
  wallSeconds: number;
  /** API requests the sandbox received (the reading's own token request left out). */
  requests: number;
  ingestions: Array<{ outer_ids: string[]; overwrite_audio_file?: string; status: number }>;
}

async function deliverAgain(
  info: SandboxInfo,
  dir: string,
  home: string,
  csv: string,
): Promise<Observed> {
  await clearSandboxRequests(info);
  const started = performance.now();
  const run = await runChild<RunReport>(SELF, ['--child', dir, home, csv], info);
  const wallSeconds = (performance.now() - started) / 1000;
  const requests = (await sandboxRequests(info)).slice(0, -1);
  const ingestions = requests
    .filter((r) => r.path.startsWith('/ingestion/'))
    .map((r) => ({
      outer_ids: r.outer_ids ?? [],
      ...(r.query.overwrite_audio_file
        ? { overwrite_audio_file: r.query.overwrite_audio_file }
        : {}),
      status: r.status,
    }));
  return { run, wallSeconds, requests: requests.length, ingestions };
}

/** The MD5 of an object in the sandbox's bucket (where the service keeps an entry's audio). */
async function objectMd5(info: SandboxInfo, key: string): Promise<string> {
  const { bucket } = info;
  const s3 = createS3Client({
    endpoint: bucket.endpoint,
    region: bucket.bucket_region,
    bucket: bucket.bucket_name,
    accessKeyId: bucket.access_key_id,
    secretAccessKey: bucket.secret_access_key,
  });
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket_name, Key: key }));
    return createHash('md5')
      .update(await object.Body!.transformToByteArray())
      .digest('hex');
  } finally {
    s3.destroy();
  }
}

/** A track's ledger entry as a json delivery records it (body, audio identity). */
function syntheticEntry(i: number, delivery: string): LedgerEntry {
  const outerId = masterTags(i).isrc!;
  const primary = `bench-${delivery}/${String(i).padStart(6, '0')}.mp3`;
  return {
    outer_id: outerId,
    mode: 'json',
    path: `${String(i).padStart(6, '0')}.mp3`,
    localPath: `/masters/${String(i).padStart(6, '0')}.mp3`,
    size: 4_000_000 + i,
    mtimeMs: 1_763_700_000_000 + i,
    md5: createHash('md5').update(String(i)).digest('hex'),
    primary_media: primary,
    body: {
      outer_id: outerId,
      primary_media: primary,
      title: `Track ${i}`,
      isrc: outerId,
      release_date: 20210514,
      artists: [{ id: `Artist ${i % 97}`, name: `Artist ${i % 97}`, role: 'Main' }],
      albums: [
        {
          title: `Album ${Math.floor(i / 12)}`,
          upc: '5099902988023',
          release_date: '20210514',
          track_position: String(1 + (i % 12)),
          disk_number: '1',
        },
      ],
    },
    delivery,
    at: new Date(Date.UTC(2026, 10, 21)).toISOString(),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface LedgerFigures {
  size: number;
  openSeconds: number;
  batchMs: number;
  bytes: number;
  compactSeconds: number;
}

/**
 * Ledgers of each size built in `work` (in appends of 5,000), then `LEDGER_ROUNDS` batches of
 * `LEDGER_BATCH` re-delivered tracks recorded into each, the sizes taking turns so that load
 * from other work falls on both alike; then each is compacted once (for information).
 */
async function measureLedgers(work: string): Promise<LedgerFigures[]> {
  const ledgers: CatalogLedger[] = [];
  const openSeconds: number[] = [];
  for (const size of LEDGER_SIZES) {
    const profile = `ledger-${size}`;
    const built = await CatalogLedger.open(work, profile, 'catalog');
    for (let from = 0; from < size; from += 5_000) {
      const count = Math.min(5_000, size - from);
      await built.record(Array.from({ length: count }, (_, k) => syntheticEntry(from + k, 'd1')));
    }
    const started = performance.now();
    ledgers.push(await CatalogLedger.open(work, profile, 'catalog'));
    openSeconds.push((performance.now() - started) / 1000);
  }
  const times: number[][] = LEDGER_SIZES.map(() => []);
  for (let round = 0; round < LEDGER_ROUNDS; round++) {
    for (const [s, ledger] of ledgers.entries()) {
      const size = LEDGER_SIZES[s]!;
      // Tracks spread over the catalog, each re-delivered (as a changes-only run records them).
      const batch = Array.from({ length: LEDGER_BATCH }, (_, k) =>
        syntheticEntry(((round * LEDGER_BATCH + k) * 397) % size, `d${round + 2}`),
      );
      const started = performance.now();
      await ledger.record(batch);
      times[s]!.push(performance.now() - started);
    }
  }
  const figures: LedgerFigures[] = [];
  for (const [s, ledger] of ledgers.entries()) {
    const bytes = (await stat(ledger.file)).size;
    // The rewrite that an append past twice as many lines as entries sets off (amortised).
    const started = performance.now();
    await ledger.compact();
    const compactSeconds = (performance.now() - started) / 1000;
    figures.push({
      size: LEDGER_SIZES[s]!,
      openSeconds: openSeconds[s]!,
      batchMs: median(times[s]!),
      bytes,
      compactSeconds,
    });
  }
  return figures;
}

async function main(): Promise<void> {
  const tracks = Number(arg('tracks') ?? 10_000);
  const work = await mkdtemp(join(tmpdir(), 'courier-bench-sync-'));
  // Analysis and product runs are pushed past the bench: the sandbox stays idle between runs.
  const day = 24 * 3600 * 1000;
  const sandbox = await startSandbox({
    dataDir: join(work, 'sandbox'),
    timings: { analysisMs: day, productIntervalMs: day },
  });
  const lines: string[] = [];
  const row = (label: string, text: string) => lines.push(`${label.padEnd(26)}${text}`);
  /** A run's time from `start`, with the CPU time of its process (every thread, start-up too). */
  const secs = (run: RunReport) =>
    `${run.seconds.toFixed(1).padStart(6)} s (CPU ${run.cpuSeconds.toFixed(1)} s)`;
  const failed: string[] = [];
  /** Records a target missed; a line of checks says PASS only when all of them are met. */
  const verdict = (checks: Array<[name: string, ok: boolean]>) => {
    for (const [name, ok] of checks) if (!ok) failed.push(name);
    return checks.every(([, ok]) => ok) ? 'PASS' : 'FAIL';
  };
  try {
    const { info } = sandbox;
    const dir = join(work, 'masters');
    const home = join(work, 'home');
    const csv = join(work, 'metadata.csv');
    const fixed = 3;
    const retagged = Math.min(5, tracks - 1);
    const replaced = Math.min(7, tracks - 1);
    const rel = (i: number) => masterPath('', i);
    console.error(`Generating ${tracks} tagged MP3s…`);
    const paths = await generateMasters(work, dir, tracks);
    await writeFile(csv, `file,title\n${rel(fixed)},${masterTags(fixed).title}\n`);

    console.error('First delivery (set-up)…');
    const first = await deliverAgain(info, dir, home, csv);
    row(
      'first delivery (set-up)',
      `${secs(first.run)}  ${first.run.state}${first.run.error ? ` (${first.run.error})` : ''}, ${first.ingestions.length} requests, ${first.run.uploaded} files uploaded (no target)`,
    );
    if (first.run.state !== 'accepted') {
      failed.push('first delivery');
      return;
    }

    console.error('No-change re-run…');
    const same = await deliverAgain(info, dir, home, csv);
    const sameVerdict = verdict([
      [`no-change re-run under ${NO_CHANGE_TARGET_S} s`, same.run.seconds < NO_CHANGE_TARGET_S],
      ['no-change re-run: nothing changed', same.run.state === 'unchanged'],
      ['no-change re-run: no ingestion request', same.ingestions.length === 0],
      ['no-change re-run: no file hashed', same.run.hashed === 0],
    ]);
    row(
      'no-change re-run',
      `${secs(same.run)}  target < ${NO_CHANGE_TARGET_S} s; ${same.run.state}${same.run.unchanged !== undefined ? ` (${same.run.unchanged} tracks)` : ''}, ${same.ingestions.length} ingestion requests (target 0; ${same.requests} API requests in all), ${same.run.hashed} files hashed (target 0); process with start-up ${same.wallSeconds.toFixed(1)} s  ${sameVerdict}`,
    );

    const entryOf = async (outerId: string) =>
      (await sandboxEntries(info, info.catalogs[0]!.id)).find((e) => e.outer_id === outerId);
    const md5Of = async (path: string) =>
      createHash('md5')
        .update(await readFile(path))
        .digest('hex');
    /** Runs the command again after one track changed; the service must get that track alone. */
    const oneTrack = async (what: string, index: number, metadataOnly: boolean, title: string) => {
      const outerId = masterTags(index).isrc!;
      const seen = await deliverAgain(info, dir, home, csv);
      const stored = await entryOf(outerId);
      const audio = stored?.audio_key ? await objectMd5(info, stored.audio_key) : undefined;
      const uploaded = seen.run.uploaded ?? 0;
      const [request, ...more] = seen.ingestions;
      const ok = verdict([
        [`${what}: one request`, request !== undefined && more.length === 0],
        [`${what}: that track alone`, request?.outer_ids.join() === outerId],
        [`${what}: accepted`, seen.run.state === 'accepted' && stored?.metadata.title === title],
        [
          `${what}: ${metadataOnly ? 'nothing uploaded' : 'one file uploaded'}`,
          uploaded === (metadataOnly ? 0 : 1),
        ],
        [
          `${what}: ${metadataOnly ? 'audio kept' : 'audio sent'}`,
          (request?.overwrite_audio_file === 'false') === metadataOnly,
        ],
        [`${what}: the service's audio is the master`, audio === (await md5Of(paths[index]!))],
      ]);
      const changes = seen.run.changes;
      row(
        what,
        `${secs(seen.run)}  ${seen.ingestions.length} request [${seen.ingestions.map((r) => r.outer_ids.join(' ')).join('; ')}] (target: 1 with ${outerId}), overwrite_audio_file=${request?.overwrite_audio_file ?? '(default)'}, ${uploaded} uploaded (target ${metadataOnly ? 0 : 1}), ${seen.run.hashed} hashed${changes ? `; plan: ${changes.audio} new audio, ${changes.metadata} metadata only, ${changes.unchanged} unchanged` : ''}  ${ok}`,
      );
    };

    console.error('A title fixed in the metadata CSV…');
    await writeFile(csv, `file,title\n${rel(fixed)},${masterTags(fixed).title} (fixed)\n`);
    await oneTrack('title fixed in the CSV', fixed, true, `${masterTags(fixed).title} (fixed)`);

    console.error("A title edited in a file's tags…");
    const retitled = `${masterTags(retagged).title} (retitled)`;
    await writeTags([
      {
        path: paths[retagged]!,
        family: 'id3v2.4',
        tags: { ...masterTags(retagged), title: retitled },
      },
    ]);
    await oneTrack('title edited in the tags', retagged, false, retitled);

    console.error('A master replaced by other audio…');
    const other = join(work, 'other.mp3');
    await makeAudio('mp3', other, { seconds: 0.1 });
    await copyFile(other, paths[replaced]!);
    await writeTags([{ path: paths[replaced]!, family: 'id3v2.4', tags: masterTags(replaced) }]);
    await oneTrack('master replaced', replaced, false, masterTags(replaced).title!);

    console.error('Ledger batches at 10,000 and 100,000 entries…');
    const [small, large] = await measureLedgers(join(work, 'ledgers'));
    const ratio = large!.batchMs / small!.batchMs;
    const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
    row(
      `ledger batch of ${LEDGER_BATCH}`,
      `${small!.size} entries ${small!.batchMs.toFixed(2)} ms, ${large!.size} entries ${large!.batchMs.toFixed(2)} ms (append + fsync, median of ${LEDGER_ROUNDS}): ratio ${ratio.toFixed(2)}, target < ${LEDGER_RATIO_TARGET}  ${verdict([['ledger batch cost independent of size', ratio < LEDGER_RATIO_TARGET]])}`,
    );
    row(
      'ledger open',
      `${small!.size} entries ${small!.openSeconds.toFixed(2)} s (${mib(small!.bytes)}), ${large!.size} entries ${large!.openSeconds.toFixed(2)} s (${mib(large!.bytes)}) (no target)`,
    );
    row(
      'ledger compaction',
      `${small!.size} entries ${small!.compactSeconds.toFixed(2)} s, ${large!.size} entries ${large!.compactSeconds.toFixed(2)} s (once the log holds twice its entries + 1,000 lines; no target)`,
    );
  } finally {
    await sandbox.close();
    await rm(work, { recursive: true, force: true });
    console.log([`bench:sync: ${tracks} tracks, json mode, sandbox`, ...lines].join('\n'));
    console.log(
      failed.length === 0 ? 'bench:sync: PASS' : `bench:sync: FAIL (${failed.join('; ')})`,
    );
    if (failed.length > 0) process.exitCode = 1;
  }
}

if (process.argv.includes('--child')) await child();
else await main();
