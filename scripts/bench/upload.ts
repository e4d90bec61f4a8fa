/**
 * `npm run bench:upload [-- --small] [-- --server moto|s3rver|both] [-- --files N --mib M]`
 *
 * Uploads the same generated data (40 random files, 2 GiB by default; `--small`: 8 files,
 * 256 MiB) to the same local S3 server twice in one run: with Courier's uploader (in a fresh
 * child process, so its peak RSS and event-loop lag are its own) and with `aws s3 cp
 * --recursive` (Debian's awscli). Prints both wall times, the ratio, Courier's peak RSS and the
 * p99 event-loop lag of the uploading process. The servers run in their own processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import { uploadDirectory } from '../../src-main/core/storage/upload-directory.js';

const MiB = 1024 * 1024;
const BUCKET = 'courier-bench';
const ACCESS = { moto: ['bench-key', 'bench-secret'], s3rver: ['S3RVER', 'S3RVER'] } as const;

type ServerName = 'moto' | 's3rver';

interface ChildResult {
  ok: boolean;
  seconds: number;
  maxRssMiB: number;
  lagP99Ms: number;
  lagMaxMs: number;
  bytesSent: number;
}

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The uploading side, run in its own process: `upload.ts --child DIR FOLDER` (target in env). */
async function child(): Promise<void> {
  const [dir, folder] = process.argv.slice(process.argv.indexOf('--child') + 1);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const started = performance.now();
  const report = await uploadDirectory({
    dir: dir!,
    folder: folder!,
    dataDir: process.env.COURIER_HOME!,
    target: {
      endpoint: process.env.S3_ENDPOINT,
      region: 'us-east-1',
      bucket: BUCKET,
      accessKeyId: process.env.S3_ACCESS_KEY_ID!,
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY!,
    },
  });
  const seconds = (performance.now() - started) / 1000;
  lag.disable();
  const result: ChildResult = {
    ok: report.ok,
    seconds,
    // maxRSS is in KiB on Linux and macOS.
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    lagP99Ms: lag.percentile(99) / 1e6,
    lagMaxMs: lag.max / 1e6,
    bytesSent: report.bytesSent,
  };
  if (!report.ok)
    process.stderr.write(JSON.stringify(report.files.filter((f) => f.status === 'failed')) + '\n');
  process.stdout.write(JSON.stringify(result) + '\n');
}

async function generate(dir: string, files: number, totalBytes: number): Promise<void> {
  const buffer = Buffer.allocUnsafe(8 * MiB);
  const base = Math.floor(totalBytes / files);
  for (let i = 0; i < files; i++) {
    // Uneven sizes (±25 %) so the last part of each file varies, as with real masters.
    const size =
      i === files - 1
        ? totalBytes - base * (files - 1)
        : base + Math.round(base * 0.25 * Math.sin(i));
    const handle = await open(join(dir, `track-${String(i + 1).padStart(3, '0')}.wav`), 'w');
    for (let written = 0; written < size;) {
      const n = Math.min(buffer.length, size - written);
      randomFillSync(buffer, 0, n);
      await handle.write(buffer, 0, n);
      written += n;
    }
    await handle.close();
  }
}

async function waitForHttp(url: string, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`server at ${url} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function startServer(name: ServerName, port: number, scratch: string): Promise<ChildProcess> {
  const endpoint = `http://127.0.0.1:${port}`;
  let proc: ChildProcess;
  if (name === 'moto') {
    proc = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  } else {
    const dir = join(scratch, 's3rver');
    await mkdir(dir);
    const code = `
      const S3rver = require('@20minutes/s3rver');
      new S3rver({ address: '127.0.0.1', port: ${port}, silent: true, directory: ${JSON.stringify(dir)},
        configureBuckets: [{ name: '${BUCKET}', configs: [] }] }).run();`;
    proc = spawn(process.execPath, ['-e', code], { stdio: 'ignore', cwd: process.cwd() });
  }
  await waitForHttp(endpoint, proc);
  if (name === 'moto') {
    const [accessKeyId, secretAccessKey] = ACCESS.moto;
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
    });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    client.destroy();
  }
  return proc;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    proc.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) =>
      resolve({ code, stdout, seconds: (performance.now() - started) / 1000 }),
    );
  });
}

async function benchServer(
  name: ServerName,
  dataDir: string,
  scratch: string,
  totalBytes: number,
): Promise<void> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const endpoint = `http://127.0.0.1:${port}`;
  const server = await startServer(name, port, scratch);
  const [accessKeyId, secretAccessKey] = ACCESS[name];
  try {
    const courierHome = await mkdtemp(join(scratch, 'home-'));
    const courier = await run(
      process.execPath,
      [
        // e.g. BENCH_CHILD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the uploader.
        ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--child',
        dataDir,
        `bench-courier-${name}`,
      ],
      {
        ...process.env,
        COURIER_HOME: courierHome,
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: accessKeyId,
        S3_SECRET_ACCESS_KEY: secretAccessKey,
      },
    );
    const result = JSON.parse(courier.stdout.trim().split('\n').at(-1)!) as ChildResult;
    if (courier.code !== 0 || !result.ok) throw new Error(`Courier's upload to ${name} failed`);

    const aws = await run(
      'aws',
      [
        's3',
        'cp',
        dataDir,
        `s3://${BUCKET}/delivery/audio/bench-awscli-${name}/`,
        '--recursive',
        '--only-show-errors',
        '--endpoint-url',
        endpoint,
      ],
      {
        ...process.env,
        AWS_ACCESS_KEY_ID: accessKeyId,
        AWS_SECRET_ACCESS_KEY: secretAccessKey,
        AWS_DEFAULT_REGION: 'us-east-1',
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        // Same integrity mode as Courier (and s3rver can't read aws-chunked trailers).
        AWS_REQUEST_CHECKSUM_CALCULATION: 'when_required',
      },
    );
    if (aws.code !== 0) throw new Error(`aws s3 cp to ${name} failed (exit ${aws.code})`);

    const mib = totalBytes / MiB;
    const line = (label: string, seconds: number): string =>
      `  ${label.padEnd(22)} ${seconds.toFixed(2).padStart(8)} s  ${(mib / seconds).toFixed(0).padStart(5)} MiB/s`;
    process.stdout.write(
      [
        `server: ${name}`,
        line('courier (uploader)', result.seconds),
        line('courier (process)', courier.seconds),
        line('aws s3 cp --recursive', aws.seconds),
        `  ratio (aws / courier process): ${(aws.seconds / courier.seconds).toFixed(2)}×  (target ≥ 1.25×)`,
        `  courier peak RSS: ${result.maxRssMiB.toFixed(0)} MiB  (target < 300 MiB)`,
        `  courier event-loop lag: p99 ${result.lagP99Ms.toFixed(1)} ms, max ${result.lagMaxMs.toFixed(1)} ms  (target p99 < 50 ms)`,
        '',
      ].join('\n'),
    );
  } finally {
    server.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const small = process.argv.includes('--small');
  const files = Number(arg('files') ?? (small ? 8 : 40));
  const totalBytes = Number(arg('mib') ?? (small ? 256 : 2048)) * MiB;
  const which = (arg('server') ?? 'both') as ServerName | 'both';
  const scratch = await mkdtemp(join(tmpdir(), 'courier-bench-'));
  const dataDir = join(scratch, 'data');
  try {
    await mkdir(dataDir);
    await generate(dataDir, files, totalBytes);
    process.stdout.write(`data: ${files} files, ${(totalBytes / MiB).toFixed(0)} MiB in total\n`);
    for (const name of which === 'both' ? (['s3rver', 'moto'] as const) : [which]) {
      await benchServer(name, dataDir, scratch, totalBytes);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) await child();
else await main();
