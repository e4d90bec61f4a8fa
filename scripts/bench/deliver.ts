/**
 * `npm run bench:deliver [-- --tracks N]`
 *
 * Delivers N (10,000 by default) tiny generated, tagged MP3s in `json` mode to a sandbox started
 * for the run through the one delivery service (as `courier deliver` does): read tags → plan →
 * pre-flight → upload → HeadObject confirm → ingest in batches of 25. The delivery runs in its own child process so its peak RSS is its own. Prints total and per-phase
 * times, requests sent (from the sandbox's /sandbox/requests/summary), token requests (target: one) and
 * peak RSS.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { DeliveryService } from '../../src-main/core/delivery/delivery-service.js';
import { startSandbox } from '../../src-main/core/sandbox/index.js';
import {
  BENCH_PROFILE,
  benchServices,
  generateMasters,
  runChild,
  sandboxInfoOfParent,
  sandboxRequestCounts,
} from './sandbox-delivery.js';

const SELF = fileURLToPath(import.meta.url);

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

interface ChildReport {
  state: string;
  error?: string;
  seconds: number;
  planSeconds: number;
  uploadSeconds: number;
  confirmSeconds: number;
  ingestSeconds: number;
  batches: number;
  tokenRequests: number;
  maxRssMiB: number;
}

/** The delivering side: `deliver.ts --child DIR HOME` with the sandbox info in COURIER_BENCH. */
async function child(): Promise<void> {
  const [dir, home] = process.argv.slice(process.argv.indexOf('--child') + 1) as [string, string];
  const info = sandboxInfoOfParent();
  // The same service the CLI and the app use: plan (tags, fingerprints), pre-flight, run.
  const services = await benchServices(home, info);
  const started = performance.now();
  const run = await new DeliveryService(services, {}, 'bench:deliver').start({
    profile: BENCH_PROFILE,
    catalogId: info.catalogs[0]!.id,
    mode: 'json',
    source: { kind: 'folder', dir },
  });
  const planSeconds = (performance.now() - started) / 1000;
  const record = await run.done;
  const { api } = await services.connections.get(BENCH_PROFILE);
  const report: ChildReport = {
    state: record.state,
    ...(record.error ? { error: record.error } : {}),
    seconds: (performance.now() - started) / 1000,
    planSeconds,
    uploadSeconds: record.durations.uploadMs / 1000,
    confirmSeconds: record.durations.confirmMs / 1000,
    ingestSeconds: record.durations.ingestMs / 1000,
    batches: record.batches.length,
    tokenRequests: api.tokenRequests,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

async function main(): Promise<void> {
  const tracks = Number(arg('tracks') ?? 10_000);
  const work = await mkdtemp(join(tmpdir(), 'courier-bench-deliver-'));
  const sandbox = await startSandbox({
    dataDir: join(work, 'sandbox'),
    timings: { analysisMs: 60_000, productIntervalMs: 600_000 },
  });
  try {
    const dir = join(work, 'masters');
    console.error(`Generating ${tracks} tagged MP3s…`);
    await generateMasters(work, dir, tracks);
    console.error('Delivering…');
    const report = await runChild<ChildReport>(
      SELF,
      ['--child', dir, join(work, 'home')],
      sandbox.info,
    );
    // Counts, not the request log: the log keeps the last 1,000 requests only.
    const counts = await sandboxRequestCounts(sandbox.info);
    const ingestion = Object.entries(counts.by_path)
      .filter(([path]) => path.startsWith('/ingestion/'))
      .reduce((sum, [, n]) => sum + n, 0);
    const tokens = (counts.by_path['/oauth/access_tokens/client'] ?? 0) - 1;
    console.log(
      [
        `tracks:            ${tracks}`,
        `state:             ${report.state}${report.error ? ` (${report.error})` : ''}`,
        `total:             ${report.seconds.toFixed(1)} s (plan: tags, hashes, pre-flight ${report.planSeconds.toFixed(1)} s, upload ${report.uploadSeconds.toFixed(1)} s, confirm ${report.confirmSeconds.toFixed(1)} s, ingest ${report.ingestSeconds.toFixed(1)} s)`,
        `ingestion requests: ${ingestion} (planned ${report.batches})`,
        `token requests:    ${report.tokenRequests} (sandbox saw ${tokens}; target: one)`,
        `peak RSS:          ${report.maxRssMiB.toFixed(0)} MiB`,
      ].join('\n'),
    );
  } finally {
    await sandbox.close();
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) await child();
else await main();
