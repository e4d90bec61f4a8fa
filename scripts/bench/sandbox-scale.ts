/**
 * The sandbox at scale: `measureSandboxScale(entries)` fills a fresh sandbox data directory
 * through its entry store in requests of 25 entries (as a json delivery does), moves every entry
 * through processing's states the same way, reopens it, and times its inspection routes over
 * HTTP. `npm run bench:scale` calls it; run alone with
 * `npx tsx scripts/bench/sandbox-scale.ts [--entries N]...` (default 10,000 and 100,000).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { EntryStore } from '../../src-main/core/sandbox/entry-store.js';
import { loadOrCreateIdentity } from '../../src-main/core/sandbox/identity.js';
import { type Entry, type SandboxInfo, startSandbox } from '../../src-main/core/sandbox/index.js';
import { sandboxEntries } from './sandbox-delivery.js';

/** The figures of one run. */
export interface SandboxScaleReport {
  entries: number;
  /** Median wall time of one 25-entry put (write + fsync), over the first and the last 100 puts. */
  putMsPerRequest: { start: number; end: number };
  /** The same for state changes (processing's appends), first and last 100 batches of 25. */
  stateChangeMsPerRequest: { start: number; end: number };
  /** Records in the log at the end (live and overwritten) and its size. */
  logRecords: number;
  logMiB: number;
  /** `EntryStore.open` of the full store, and the whole sandbox start on it. */
  openMs: number;
  sandboxStartMs: number;
  /** JS heap the opened store holds (approximate unless node runs with --expose-gc). */
  storeHeapMiB: number;
  /** Each inspection route's answer, request to parsed JSON, in ms (median of 3, warmed up). */
  inspectionMs: {
    /** The default answer: the first page (`ENTRY_PAGE_LIMIT` entries). */
    firstPage: number;
    page: number;
    byOuterId: number;
    countByState: number;
    requests: number;
    requestSummary: number;
  };
  /** The largest of `inspectionMs`. */
  inspectionMaxMs: number;
  /** Every entry, page after page (not one answer: not part of the target). */
  allPagesMs: number;
}

const BATCH = 25;
const SAMPLE = 100;

/** Track metadata about the size a json delivery sends. */
function entryFor(catalogId: string, i: number, now: number): Entry {
  const outerId = `GBABC26${String(i).padStart(5, '0')}`;
  return {
    catalog_id: catalogId,
    outer_id: outerId,
    mode: 'json',
    ingestion_id: String(now),
    metadata: {
      outer_id: outerId,
      primary_media: `scale/${String(Math.floor(i / 1000)).padStart(3, '0')}/${i}.wav`,
      title: `Scale track ${i}`,
      isrc: outerId,
      artists: [{ name: `Artist ${i % 97}`, role: 'main' }],
      albums: [
        {
          title: `Album ${Math.floor(i / 12)}`,
          upc: String(100000000000 + Math.floor(i / 12)),
          release_date: '2024-05-17',
          track_number: (i % 12) + 1,
        },
      ],
      genre: 'Ambient',
      duration: 180 + (i % 60),
    },
    audio_key: `processed/audio/${catalogId}/${outerId}/${i}.wav`,
    state: 'stored',
    created_at: now,
    updated_at: now,
  };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The middle value: steadier than the mean on a machine shared with other work. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median of three answers, after one to warm up. */
async function timedAnswer(run: () => Promise<unknown>): Promise<number> {
  await run();
  return median([await timed(run), await timed(run), await timed(run)]);
}

async function inspect(info: SandboxInfo, token: string, path: string): Promise<unknown> {
  const res = await fetch(`${info.base_url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as { data: unknown };
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** Fills, reopens and inspects a sandbox holding `entries` entries in one catalog. */
export async function measureSandboxScale(entries: number): Promise<SandboxScaleReport> {
  const work = await mkdtemp(join(tmpdir(), 'courier-bench-sandbox-'));
  try {
    const dataDir = join(work, 'sandbox');
    const identity = await loadOrCreateIdentity(dataDir, Date.now());
    const catalogId = identity.catalogs[0]!.id;
    const store = await EntryStore.open(
      dataDir,
      identity.catalogs.map((c) => c.id),
    );
    const puts: number[] = [];
    for (let i = 0; i < entries; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, entries - i) }, (_, k) =>
        entryFor(catalogId, i + k, Date.now()),
      );
      puts.push(await timed(() => store.put(batch)));
    }
    // What processing does to each entry: stored → analyzing → analyzed, then available.
    const changes: number[] = [];
    for (const state of ['analyzing', 'analyzed', 'available'] as const) {
      const list = store.list(catalogId);
      for (let i = 0; i < list.length; i += BATCH) {
        const batch = list
          .slice(i, i + BATCH)
          .map((e) => ({ ...e, state, updated_at: e.updated_at + 1 }));
        changes.push(await timed(() => store.put(batch)));
      }
    }
    const logRecords = store.logSize(catalogId);
    await store.close();
    const logMiB = (await stat(join(dataDir, 'entries', `${catalogId}.jsonl`))).size / 2 ** 20;

    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const openStart = performance.now();
    const reopened = await EntryStore.open(dataDir, [catalogId]);
    const openMs = performance.now() - openStart;
    gc?.();
    const storeHeapMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    if (reopened.list(catalogId).length !== entries) throw new Error('entries lost on reopen');
    await reopened.close();

    const startAt = performance.now();
    const sandbox = await startSandbox({
      dataDir,
      timings: { analysisMs: 3_600_000, productIntervalMs: 3_600_000 },
    });
    const sandboxStartMs = performance.now() - startAt;
    try {
      const { info } = sandbox;
      const tokenRes = await fetch(`${info.base_url}/oauth/access_tokens/client`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: info.client_id, client_secret: info.client_secret }),
      });
      const token = ((await tokenRes.json()) as { data: { token: string } }).data.token;
      const base = `/sandbox/catalogs/${encodeURIComponent(catalogId)}/entries`;
      const inspectionMs = {
        firstPage: await timedAnswer(() => inspect(info, token, base)),
        page: await timedAnswer(() =>
          inspect(info, token, `${base}?offset=${Math.floor(entries / 2)}&limit=1000`),
        ),
        byOuterId: await timedAnswer(() =>
          inspect(info, token, `${base}?outer_id=${entryFor(catalogId, entries - 1, 0).outer_id}`),
        ),
        countByState: await timedAnswer(() =>
          inspect(info, token, `${base}?state=available&limit=0`),
        ),
        requests: await timedAnswer(() => inspect(info, token, '/sandbox/requests')),
        requestSummary: await timedAnswer(() => inspect(info, token, '/sandbox/requests/summary')),
      };
      let all: Entry[] = [];
      const allPagesMs = await timed(async () => (all = await sandboxEntries(info, catalogId)));
      if (all.length !== entries) throw new Error('inspection lost entries');
      return {
        entries,
        putMsPerRequest: { start: median(puts.slice(0, SAMPLE)), end: median(puts.slice(-SAMPLE)) },
        stateChangeMsPerRequest: {
          start: median(changes.slice(0, SAMPLE)),
          end: median(changes.slice(-SAMPLE)),
        },
        logRecords,
        logMiB,
        openMs,
        sandboxStartMs,
        storeHeapMiB,
        inspectionMs,
        inspectionMaxMs: Math.max(...Object.values(inspectionMs)),
        allPagesMs,
      };
    } finally {
      await sandbox.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** One line per figure, for a terminal. */
export function formatSandboxScale(report: SandboxScaleReport): string {
  const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
  const i = report.inspectionMs;
  return [
    `sandbox entries:        ${report.entries}`,
    `put (25 entries):       ${ms(report.putMsPerRequest.start)} first ${SAMPLE}, ${ms(report.putMsPerRequest.end)} last ${SAMPLE} (target: flat)`,
    `state change (25):      ${ms(report.stateChangeMsPerRequest.start)} first ${SAMPLE}, ${ms(report.stateChangeMsPerRequest.end)} last ${SAMPLE}`,
    `log:                    ${report.logRecords} records, ${report.logMiB.toFixed(1)} MiB`,
    `open store:             ${ms(report.openMs)} (sandbox start ${ms(report.sandboxStartMs)}), heap ${report.storeHeapMiB.toFixed(0)} MiB`,
    `inspection:             first page ${ms(i.firstPage)}, page ${ms(i.page)}, by outer_id ${ms(i.byOuterId)}, count by state ${ms(i.countByState)}, requests ${ms(i.requests)}, summary ${ms(i.requestSummary)} (target: < 1000 ms)`,
    `every entry, in pages:  ${ms(report.allPagesMs)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const asked = process.argv.flatMap((a, k) =>
    process.argv[k - 1] === '--entries' ? [Number(a)] : [],
  );
  for (const entries of asked.length > 0 ? asked : [10_000, 100_000]) {
    console.log(formatSandboxScale(await measureSandboxScale(entries)));
    console.log();
  }
}
