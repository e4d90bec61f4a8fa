/**
 * `npm run bench:upload [-- --small] [-- --server moto|s3rver|sandbox|both] [-- --rounds R]
 *  [-- --files N --mib M]`
 *
 * Uploads the same generated data (40 random files, 2 GiB by default; `--small`: 8 files,
 * 256 MiB) to a local S3 server twice in one run: with Courier's uploader (in a fresh child
 * process, so its peak RSS and event-loop lag are its own) and with `aws s3 cp --recursive`
 * (Debian's awscli). Each tool's run meets a server started for it alone, in its own process.
 * Prints both wall times, the ratio, the CPU the server and each uploader spent per file (on
 * Linux), Courier's peak RSS and the p99 event-loop lag of the uploading process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { build } from 'esbuild';

import type { SandboxInfo } from '../../src-main/core/sandbox/index.js';
import { createS3Client } from '../../src-main/core/storage/s3-client.js';
import { uploadDirectory } from '../../src-main/core/storage/upload-directory.js';

const MiB = 1024 * 1024;
const BUCKET = 'courier-bench';
const ACCESS = { moto: ['bench-key', 'bench-secret'], s3rver: ['S3RVER', 'S3RVER'] } as const;

type ServerName = 'moto' | 's3rver' | 'sandbox';

/** A running S3 server and how to reach its bucket. */
interface Server {
  proc: ChildProcess;
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

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
  const target = {
    endpoint: process.env.S3_ENDPOINT,
    region: process.env.S3_REGION!,
    bucket: process.env.S3_BUCKET!,
    accessKeyId: process.env.S3_ACCESS_KEY_ID!,
    secretAccessKey: process.env.S3_SECRET_ACCESS_KEY!,
  };
  // Load the SDK's lazily imported modules and open a connection first, as the app has long
  // done before any upload starts; the lag measured is the upload's own.
  const warm = createS3Client(target);
  await warm
    .send(new HeadObjectCommand({ Bucket: target.bucket, Key: 'delivery/audio/warm-up' }))
    .catch(() => undefined);
  warm.destroy();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const started = performance.now();
  const report = await uploadDirectory({
    dir: dir!,
    folder: folder!,
    dataDir: process.env.COURIER_HOME!,
    target,
    // BENCH_CONCURRENCY tries another number of transfers in flight (default: Courier's 8).
    ...(process.env.BENCH_CONCURRENCY
      ? { options: { concurrency: Number(process.env.BENCH_CONCURRENCY) } }
      : {}),
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

/** Keeps the end of what a server writes to stderr, to say why it did not start. */
function stderrTail(proc: ChildProcess): () => string {
  let tail = '';
  proc.stderr?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-2000)));
  return () => (tail.trim() ? `:\n${tail.trim()}` : '');
}

async function waitForHttp(url: string, proc: ChildProcess): Promise<void> {
  const stderr = stderrTail(proc);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`server at ${url} did not start (exit ${proc.exitCode})${stderr()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function startServer(name: ServerName, port: number, home: string): Promise<Server> {
  const endpoint = `http://127.0.0.1:${port}`;
  if (name === 'sandbox') {
    // The sandbox's own bucket: s3rver behind its policy gate, as `courier sandbox` serves it.
    const proc = spawn(
      process.execPath,
      [
        'scripts/courier.mjs',
        'sandbox',
        '--data',
        join(home, 'sandbox'),
        '--s3-port',
        String(port),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
      },
    );
    const stderr = stderrTail(proc);
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      proc.on('exit', (code) => reject(new Error(`courier sandbox exited (${code})${stderr()}`)));
    });
    const { bucket } = JSON.parse(line) as SandboxInfo;
    return {
      proc,
      endpoint: bucket.endpoint,
      bucket: bucket.bucket_name,
      region: bucket.bucket_region,
      accessKeyId: bucket.access_key_id,
      secretAccessKey: bucket.secret_access_key,
    };
  }
  let proc: ChildProcess;
  if (name === 'moto') {
    proc = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } else {
    const dir = join(home, 's3rver');
    await mkdir(dir);
    const code = `
      const S3rver = require('@20minutes/s3rver');
      new S3rver({ address: '127.0.0.1', port: ${port}, silent: true, directory: ${JSON.stringify(dir)},
        configureBuckets: [{ name: '${BUCKET}', configs: [] }] }).run();`;
    proc = spawn(process.execPath, ['-e', code], {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: process.cwd(),
    });
  }
  await waitForHttp(endpoint, proc);
  const [accessKeyId, secretAccessKey] = ACCESS[name];
  if (name === 'moto') {
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
    });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    client.destroy();
  }
  return { proc, endpoint, bucket: BUCKET, region: 'us-east-1', accessKeyId, secretAccessKey };
}

/** Stops a server and waits for its process to end (its memory back before the next run). */
async function stopServer(server: Server): Promise<void> {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) return;
  const ended = new Promise((done) => server.proc.once('exit', done));
  server.proc.kill('SIGTERM');
  await ended;
}

/**
 * CPU seconds (user + system, every thread) a process has used, and those of its children that
 * have ended: Linux's /proc, undefined elsewhere (the figures then print as n/a).
 */
function cpuSeconds(pid: number | 'self'): { own: number; children: number } | undefined {
  try {
    // The fields after the command name: utime and stime are the 12th and 13th, cutime and
    // cstime the 14th and 15th, in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = (at: number) => Number(fields[at]) / 100;
    return { own: ticks(11) + ticks(12), children: ticks(13) + ticks(14) };
  } catch {
    return undefined;
  }
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

/**
 * Bundles this script with esbuild, as the app and CLI ship (one file, no TypeScript compiled
 * at run time), so the uploader's process is measured as users run it, not as tsx runs it.
 */
async function bundleChild(scratch: string): Promise<string> {
  const outfile = join(scratch, 'upload-bench.mjs');
  await build({
    entryPoints: [fileURLToPath(import.meta.url)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    external: ['@20minutes/s3rver'],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return outfile;
}

let childScript: string | undefined;

async function courierOnce(
  name: ServerName,
  server: Server,
  dataDir: string,
  scratch: string,
  round: number,
) {
  const courier = await run(
    process.execPath,
    [
      // e.g. BENCH_CHILD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the uploader.
      ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      childScript!,
      '--child',
      dataDir,
      `bench-courier-${name}-${round}`,
    ],
    {
      ...process.env,
      COURIER_HOME: await mkdtemp(join(scratch, 'home-')),
      S3_ENDPOINT: server.endpoint,
      S3_BUCKET: server.bucket,
      S3_REGION: server.region,
      S3_ACCESS_KEY_ID: server.accessKeyId,
      S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    },
  );
  const result = JSON.parse(courier.stdout.trim().split('\n').at(-1)!) as ChildResult;
  if (courier.code !== 0 || !result.ok) throw new Error(`Courier's upload to ${name} failed`);
  return { ...result, processSeconds: courier.seconds };
}

async function awsOnce(
  name: ServerName,
  server: Server,
  dataDir: string,
  round: number,
): Promise<{ seconds: number }> {
  const aws = await run(
    'aws',
    [
      's3',
      'cp',
      dataDir,
      `s3://${server.bucket}/delivery/audio/bench-awscli-${name}-${round}/`,
      '--recursive',
      '--only-show-errors',
      '--endpoint-url',
      server.endpoint,
    ],
    {
      ...process.env,
      AWS_ACCESS_KEY_ID: server.accessKeyId,
      AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
      AWS_DEFAULT_REGION: server.region,
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      // Same integrity mode as Courier (and s3rver can't read aws-chunked trailers).
      AWS_REQUEST_CHECKSUM_CALCULATION: 'when_required',
    },
  );
  if (aws.code !== 0) throw new Error(`aws s3 cp to ${name} failed (exit ${aws.code})`);
  return { seconds: aws.seconds };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** What one tool's run cost: its wall time, and the CPU it and the server used meanwhile. */
interface RunCost {
  seconds: number;
  /** CPU seconds the server used during the run (undefined off Linux). */
  serverCpu: number | undefined;
  /** CPU seconds the uploading process used (undefined off Linux). */
  clientCpu: number | undefined;
}

/**
 * Runs one tool against a server started for that run alone and stopped after it: every run
 * meets an empty bucket (moto holds every object in memory, and a server that already holds
 * the other tool's 10,000 objects answers more slowly), and the server's CPU is the run's own.
 */
async function onFreshServer<T extends { seconds: number }>(
  name: ServerName,
  scratch: string,
  tool: (server: Server) => Promise<T>,
): Promise<T & RunCost> {
  const home = await mkdtemp(join(scratch, 'server-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = await startServer(name, port, home);
  try {
    const server0 = cpuSeconds(server.proc.pid!);
    const client0 = cpuSeconds('self');
    const result = await tool(server);
    const server1 = cpuSeconds(server.proc.pid!);
    const client1 = cpuSeconds('self');
    return {
      ...result,
      serverCpu: server0 && server1 && server1.own - server0.own,
      // The tool ran as this process's child, which has ended: its CPU is in `children`.
      clientCpu: client0 && client1 && client1.children - client0.children,
    };
  } finally {
    await stopServer(server);
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * Rounds alternate the order (courier then aws, then aws then courier, ...) so that drift in
 * the machine's load hits both tools alike; medians are compared. Both tools send one PUT per
 * file; the server's CPU per file shows when the server, not the tool, sets the pace.
 */
async function benchServer(
  name: ServerName,
  dataDir: string,
  scratch: string,
  data: { files: number; totalBytes: number },
  rounds: number,
): Promise<void> {
  const courier: (Awaited<ReturnType<typeof courierOnce>> & RunCost)[] = [];
  const aws: RunCost[] = [];
  const runCourier = async (round: number) =>
    courier.push(
      await onFreshServer(name, scratch, (server) =>
        courierOnce(name, server, dataDir, scratch, round),
      ),
    );
  const runAws = async (round: number) =>
    aws.push(await onFreshServer(name, scratch, (server) => awsOnce(name, server, dataDir, round)));
  for (let round = 1; round <= rounds; round++) {
    if (round % 2) {
      await runCourier(round);
      await runAws(round);
    } else {
      await runAws(round);
      await runCourier(round);
    }
  }
  const mib = data.totalBytes / MiB;
  const line = (label: string, seconds: number[]): string =>
    `  ${label.padEnd(24)} ${median(seconds).toFixed(2).padStart(8)} s  ${(mib / median(seconds)).toFixed(0).padStart(5)} MiB/s` +
    (seconds.length > 1 ? `   (runs: ${seconds.map((x) => x.toFixed(1)).join(', ')})` : '');
  const courierProcess = courier.map((c) => c.processSeconds);
  /** Median CPU per file, in ms, of one side of one tool's runs. */
  const perFile = (runs: RunCost[], side: 'serverCpu' | 'clientCpu'): string => {
    const values = runs.map((r) => r[side]);
    if (values.some((v) => v === undefined)) return 'n/a';
    return `${((median(values as number[]) / data.files) * 1000).toFixed(1)} ms`;
  };
  /** How much of the run's wall time the server was busy (one core = 100 %). */
  const busy = (runs: RunCost[], wall: number[]): string => {
    const values = runs.map((r, i) => (r.serverCpu === undefined ? NaN : r.serverCpu / wall[i]!));
    return values.some(Number.isNaN) ? 'n/a' : `${(median(values) * 100).toFixed(0)} %`;
  };
  process.stdout.write(
    [
      `server: ${name}  (${rounds} round${rounds > 1 ? 's' : ''}, a fresh server each run, medians)`,
      line(
        'courier (uploader call)',
        courier.map((c) => c.seconds),
      ),
      line('courier (whole process)', courierProcess),
      line(
        'aws s3 cp --recursive',
        aws.map((a) => a.seconds),
      ),
      `  ratio aws / courier (whole process): ${(median(aws.map((a) => a.seconds)) / median(courierProcess)).toFixed(2)}×  (target ≥ 1.25×)`,
      `  server CPU per file: courier ${perFile(courier, 'serverCpu')}, aws ${perFile(aws, 'serverCpu')}; server busy ${busy(courier, courierProcess)} / ${busy(
        aws,
        aws.map((a) => a.seconds),
      )} of the wall time`,
      `  uploader CPU per file: courier ${perFile(courier, 'clientCpu')}, aws ${perFile(aws, 'clientCpu')}`,
      `  courier peak RSS: ${Math.max(...courier.map((c) => c.maxRssMiB)).toFixed(0)} MiB  (target < 300 MiB)`,
      `  courier event-loop lag p99: ${courier.map((c) => c.lagP99Ms.toFixed(1)).join(', ')} ms, max ${Math.max(...courier.map((c) => c.lagMaxMs)).toFixed(1)} ms  (target p99 < 50 ms)`,
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const small = process.argv.includes('--small');
  const files = Number(arg('files') ?? (small ? 8 : 40));
  const totalBytes = Number(arg('mib') ?? (small ? 256 : 2048)) * MiB;
  const which = (arg('server') ?? 'both') as ServerName | 'both';
  const rounds = Number(arg('rounds') ?? 2);
  const scratch = await mkdtemp(join(tmpdir(), 'courier-bench-'));
  const dataDir = join(scratch, 'data');
  try {
    await mkdir(dataDir);
    await generate(dataDir, files, totalBytes);
    childScript = await bundleChild(scratch);
    process.stdout.write(
      `data: ${files} files, ${(totalBytes / MiB).toFixed(0)} MiB in total; ` +
        `${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)} at start\n`,
    );
    for (const name of which === 'both' ? (['s3rver', 'moto'] as const) : [which]) {
      await benchServer(name, dataDir, scratch, { files, totalBytes }, rounds);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) await child();
else await main();
