/**
 * `npm run bench:deliver [-- --tracks N]`
 *
 * Delivers N (10,000 by default) tiny generated, tagged MP3s in `json` mode to a sandbox started
 * for the run through the one delivery service (as `courier deliver` does): read tags → plan →
 * pre-flight → upload → HeadObject confirm → ingest in batches of 25. The delivery runs in its own child process so its peak RSS is its own. Prints total and per-phase
 * times, requests sent (from the sandbox's /sandbox/requests), token requests (target: one) and
 * peak RSS.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { DeliveryService } from '../../src-main/core/delivery/delivery-service.js';
import { startSandbox } from '../../src-main/core/sandbox/index.js';
import { MemorySecretStore } from '../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../src-main/core/services.js';
import { copyTemplate, makeAudio, writeTags } from '../../test/support/audio-fixtures.js';

const SELF = fileURLToPath(import.meta.url);

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The delivering side: `deliver.ts --child DIR HOME` with the sandbox info in COURIER_BENCH. */
async function child(): Promise<void> {
  const [dir, home] = process.argv.slice(process.argv.indexOf('--child') + 1) as [string, string];
  const info = JSON.parse(process.env.COURIER_BENCH!) as Awaited<
    ReturnType<typeof startSandbox>
  >['info'];
  // The same service the CLI and the app use: plan (tags, fingerprints), pre-flight, run.
  const services = createServices(
    {
      COURIER_HOME: home,
      COURIER_CLIENT_SECRET: info.client_secret,
      COURIER_SECRET_ACCESS_KEY: info.bucket.secret_access_key,
    },
    { secrets: new MemorySecretStore() },
  );
  await services.profiles.save({
    name: 'Bench',
    environment: 'development',
    base_url: info.base_url,
    client_id: info.client_id,
    bucket: {
      bucket_name: info.bucket.bucket_name,
      bucket_region: info.bucket.bucket_region,
      access_key_id: info.bucket.access_key_id,
      endpoint: info.bucket.endpoint,
    },
    catalogs: info.catalogs.map(({ id, name }) => ({ id, name })),
  });
  const started = performance.now();
  const run = await new DeliveryService(services, {}, 'bench:deliver').start({
    profile: 'Bench',
    catalogId: info.catalogs[0]!.id,
    mode: 'json',
    source: { kind: 'folder', dir },
  });
  const planSeconds = (performance.now() - started) / 1000;
  const record = await run.done;
  const { api } = await services.connections.get('Bench');
  process.stdout.write(
    `${JSON.stringify({
      state: record.state,
      error: record.error,
      seconds: (performance.now() - started) / 1000,
      planSeconds,
      uploadSeconds: record.durations.uploadMs / 1000,
      confirmSeconds: record.durations.confirmMs / 1000,
      ingestSeconds: record.durations.ingestMs / 1000,
      batches: record.batches.length,
      tokenRequests: api.tokenRequests,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
    })}\n`,
  );
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
    const template = join(work, 'template.mp3');
    await makeAudio('mp3', template, { seconds: 0.05 });
    const paths = Array.from({ length: tracks }, (_, i) =>
      join(
        dir,
        `${String(Math.floor(i / 1000)).padStart(2, '0')}`,
        `${String(i).padStart(5, '0')}.mp3`,
      ),
    );
    await copyTemplate(template, paths);
    await writeTags(
      paths.map((path, i) => ({
        path,
        family: 'id3v2.4' as const,
        tags: {
          title: `Bench ${i}`,
          isrc: `GBABC26${String(i).padStart(5, '0')}`,
          artists: [`Artist ${i % 97}`],
        },
      })),
    );
    console.error('Delivering…');
    const result = await new Promise<string>((resolve, reject) => {
      const proc = spawn(
        process.execPath,
        ['--import', 'tsx', SELF, '--child', dir, join(work, 'home')],
        {
          env: { ...process.env, COURIER_BENCH: JSON.stringify(sandbox.info) },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      proc.stdout.on('data', (chunk) => (out += chunk));
      proc.once('error', reject);
      proc.once('close', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`child exited ${code}`)),
      );
    });
    const report = JSON.parse(result.trim().split('\n').pop()!);
    const tokenRes = await fetch(`${sandbox.info.base_url}/oauth/access_tokens/client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: sandbox.info.client_id,
        client_secret: sandbox.info.client_secret,
      }),
    });
    const token = ((await tokenRes.json()) as { data: { token: string } }).data.token;
    const requests = (
      (await (
        await fetch(`${sandbox.info.base_url}/sandbox/requests`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { data: { path: string }[] }
    ).data;
    const ingestion = requests.filter((r) => r.path.startsWith('/ingestion/')).length;
    const tokens = requests.filter((r) => r.path === '/oauth/access_tokens/client').length - 1;
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
