/**
 * `npm run bench:scan`: whole-process files per second of `courier scan DIR --json` (tags and
 * masters QC: properties and the integrity check of every file) against
 * `exiftool -json -r` and `exiftool -fast2 -json -r` on the same ≥ 5,000 generated tagged files
 * of mixed formats, measured in one run (the contenders take turns for BENCH_SCAN_ROUNDS rounds,
 * default 5, and each keeps its best), with each process tree's peak RSS. Then the duplicate
 * check (`courier scan --duplicates`, bundled alone: `duplicate-check.ts`) in MiB/s against
 * `sha256sum` on the same files, on that catalog (small files: the cost per file) and on a dozen
 * two-minute masters (the cost per byte), best of two runs each.
 *
 * Files: one template per format is made by ffmpeg, then copied and re-tagged by mutagen in one
 * Python run (never ffmpeg per file). BENCH_SCAN_DIR keeps the folder between runs (the masters
 * in BENCH_SCAN_DIR-masters); BENCH_SCAN_FILES changes the count.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import {
  copyTemplate,
  missingFixtureTools,
  type TagJob,
  writeTags,
} from '../../test/support/audio-fixtures.js';
import { bundleWithWorkers } from '../courier.mjs';
import { type CatalogMix, generateTaggedCatalog } from './tagged-catalog.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const count = Number(process.env.BENCH_SCAN_FILES ?? 5040);
const rounds = Math.max(1, Number(process.env.BENCH_SCAN_ROUNDS ?? 5));

const mix: CatalogMix = [
  { format: 'mp3', family: 'id3v2.4' },
  { format: 'mp3', family: 'id3v2.3' },
  { format: 'flac', family: 'vorbis' },
  { format: 'ogg', family: 'vorbis' },
  { format: 'opus', family: 'vorbis' },
  { format: 'm4a-aac', family: 'mp4' },
  { format: 'm4a-alac', family: 'mp4' },
  { format: 'wav', family: 'id3v2.4' },
  { format: 'aiff', family: 'id3v2.4' },
];

const generate = (dir: string) => generateTaggedCatalog(dir, count, mix);

interface Measure {
  name: string;
  seconds: number;
  filesPerSecond: number;
  peakRssMiB: number;
  /** User + system CPU seconds of the whole process tree (steadier than wall time on a busy machine). */
  cpuSeconds: number;
  outputBytes: number;
}

/** Runs a command under /usr/bin/time -v; stdout goes to a file (its size is reported). */
function measure(name: string, argv: string[], outFile: string): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    execFile(
      '/bin/sh',
      ['-c', `exec /usr/bin/time -v "$@" > '${outFile}'`, 'sh', ...argv],
      { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
      async (error, _stdout, stderr) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        // exiftool exits 1 when some file had an error; that is still a finished run.
        if (error && !/Exit status: [01]\b/.test(stderr)) {
          reject(new Error(`${name} failed: ${stderr.slice(-2000)}`));
          return;
        }
        const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        const output = await readFile(outFile);
        resolve({
          name,
          seconds,
          filesPerSecond: count / seconds,
          peakRssMiB: rss ? Number(rss[1]) / 1024 : NaN,
          cpuSeconds: Number(user?.[1] ?? NaN) + Number(system?.[1] ?? NaN),
          outputBytes: output.length,
        });
      },
    );
  });
}

/** Every file under `dir` (recursive), and their total size in bytes. */
async function filesOf(dir: string): Promise<{ count: number; bytes: number }> {
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) =>
    e.isFile(),
  );
  const sizes = await Promise.all(
    entries.map(async (e) => (await stat(join(e.parentPath, e.name))).size),
  );
  return { count: entries.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}

/** Bundles the duplicate check beside its worker thread, as the CLI is bundled. */
async function buildDuplicateCheck(dir: string): Promise<string> {
  await bundleWithWorkers(dir, join(repo, 'scripts/bench/duplicate-check.ts'), {
    sourcemap: false,
  });
  return join(dir, 'duplicate-check.js');
}

/**
 * A dozen masters of two minutes (pink noise, 44.1 kHz stereo: WAV, FLAC, MP3 320k, AAC 256k),
 * each in three copies tagged differently: four groups of the same audio, some 150 MB.
 */
async function generateMasters(dir: string): Promise<void> {
  const marker = `${dir}.complete`;
  if (existsSync(marker)) return;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const formats = [
    { ext: 'wav', args: ['-c:a', 'pcm_s16le'], family: 'id3v2.4' },
    { ext: 'flac', args: ['-c:a', 'flac'], family: 'vorbis' },
    { ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '320k'], family: 'id3v2.3' },
    { ext: 'm4a', args: ['-c:a', 'aac', '-b:a', '256k'], family: 'mp4' },
  ] as const;
  const jobs: TagJob[] = [];
  for (const [i, { ext, args }] of formats.entries()) {
    const template = join(dir, `master-${i}.${ext}`);
    const noise = `anoisesrc=d=120:c=pink:r=44100:a=0.3:seed=${i + 1}`;
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      noise,
      '-ac',
      '2',
      ...args,
      template,
    ]);
    const copies = [1, 2].map((k) => join(dir, `copy-${k}`, `Master ${i} (copy ${k}).${ext}`));
    await copyTemplate(template, copies);
    for (const [k, path] of copies.entries()) {
      const tags = { title: `Master ${i}, copy ${k + 1}`, ...(k === 1 ? { cover: 300_000 } : {}) };
      jobs.push({ path, family: formats[i]!.family, tags });
    }
  }
  await writeTags(jobs);
  await writeFile(marker, 'done');
}

/** The duplicate check against sha256sum on the files of `dir`, best of two runs each. */
async function compareWithSha256sum(label: string, dir: string, check: string, work: string) {
  const files = await filesOf(dir);
  spawnSync('sh', ['-c', `find '${dir}' -type f -exec cat {} + > /dev/null`]);
  const best = async (name: string, argv: string[], out: string) => {
    const a = await measure(name, argv, out);
    const b = await measure(name, argv, out);
    return a.seconds <= b.seconds ? a : b;
  };
  const sha = await best(
    'sha256sum',
    ['sh', '-c', 'find "$0" -type f -print0 | xargs -0 sha256sum', dir],
    join(work, 'sha256sum.txt'),
  );
  const dup = await best(
    'duplicate check',
    [process.execPath, check, dir],
    join(work, 'duplicates.json'),
  );
  const summary = JSON.parse(await readFile(join(work, 'duplicates.json'), 'utf8')) as {
    files: number;
    bytes: number;
    groups: number[];
  };
  const hashed = (await readFile(join(work, 'sha256sum.txt'), 'utf8')).trim().split('\n').length;
  if (summary.files !== files.count || hashed !== files.count) {
    throw new Error(
      `${label}: the duplicate check compared ${summary.files} files, sha256sum hashed ${hashed}, the folder has ${files.count}`,
    );
  }
  const mibs = (r: Measure) => files.bytes / 2 ** 20 / r.seconds;
  console.log('');
  console.log(
    `${label}: ${files.count} files, ${(files.bytes / 2 ** 20).toFixed(1)} MiB; ${summary.groups.length} group(s) of the same audio (${summary.groups.join(', ')} files), ${(summary.bytes / 2 ** 20).toFixed(1)} MiB of audio hashed`,
  );
  console.log(
    `${'command'.padEnd(28)} ${'seconds'.padStart(8)} ${'MiB/s'.padStart(9)} ${'peak RSS'.padStart(10)} ${'CPU s'.padStart(7)}`,
  );
  for (const r of [dup, sha]) {
    console.log(
      `${r.name.padEnd(28)} ${r.seconds.toFixed(2).padStart(8)} ${mibs(r).toFixed(1).padStart(9)} ${`${r.peakRssMiB.toFixed(0)} MiB`.padStart(10)} ${r.cpuSeconds.toFixed(1).padStart(7)}`,
    );
  }
  console.log(
    `duplicate check / sha256sum (MiB/s of the same files): ${(mibs(dup) / mibs(sha)).toFixed(2)}x`,
  );
}

async function main(): Promise<void> {
  const missing = missingFixtureTools();
  if (spawnSync('exiftool', ['-ver']).status !== 0) missing.push('exiftool');
  if (!existsSync('/usr/bin/time')) missing.push('/usr/bin/time');
  if (spawnSync('sha256sum', ['--version']).status !== 0) missing.push('sha256sum');
  if (missing.length > 0) {
    console.error(`bench:scan needs ${missing.join(', ')}`);
    process.exit(1);
  }
  const dir = process.env.BENCH_SCAN_DIR ?? join(tmpdir(), 'courier-bench-scan');
  const generatedAt = Date.now();
  await generate(dir);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`machine: ${availableParallelism()} cores, load average ${load}`);
  console.log(
    `files: ${count} in ${dir} (ready in ${((Date.now() - generatedAt) / 1000).toFixed(1)} s)`,
  );
  const work = await mkdtemp(join(tmpdir(), 'courier-bench-out-'));
  // Warm the page cache so that the first contender does not pay for everyone's reads.
  spawnSync('sh', ['-c', `find '${dir}' -type f -exec cat {} + > /dev/null`]);
  // Build courier's bundle now (scripts/courier.mjs does it when the sources change), so the
  // measured run is the scan alone, as users run it.
  spawnSync(process.execPath, ['scripts/courier.mjs', '--help'], { cwd: repo, stdio: 'ignore' });
  // Contenders take turns, round after round, and each keeps its best round: on a shared
  // machine a neighbour's burst then slows one round of one contender, not the ratio. Five
  // rounds, not three: courier's round lasts 2 s, exiftool's 8–15 s, so a burst of a few seconds
  // spoils a larger share of courier's rounds; with three, courier's best moved between 1.9 and
  // 2.4 s from run to run on an unchanged build.
  const contenders: [string, string[], string][] = [
    [
      'courier scan --json',
      [process.execPath, 'scripts/courier.mjs', 'scan', dir, '--json'],
      'courier.json',
    ],
    ['exiftool -json -r', ['exiftool', '-json', '-r', dir], 'exiftool.json'],
    ['exiftool -fast2 -json -r', ['exiftool', '-fast2', '-json', '-r', dir], 'exiftool-fast2.json'],
  ];
  const best: Measure[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [i, [name, argv, out]] of contenders.entries()) {
      const r = await measure(name, argv, join(work, out));
      if (!best[i] || r.seconds < best[i]!.seconds) best[i] = r;
    }
  }
  const runs = best;
  const courierEntries = JSON.parse(
    await readFile(join(work, 'courier.json'), 'utf8'),
  ) as unknown[];
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter(
    (e) => e.isFile() && !e.name.startsWith('.'),
  );
  if (courierEntries.length !== entries.length) {
    throw new Error(
      `courier listed ${courierEntries.length} files, the folder has ${entries.length}`,
    );
  }
  const [courier, exif, fast2] = runs as [Measure, Measure, Measure];
  console.log('');
  console.log(`best of ${rounds} round(s), the contenders taking turns:`);
  console.log(
    `${'command'.padEnd(28)} ${'seconds'.padStart(8)} ${'files/s'.padStart(9)} ${'peak RSS'.padStart(10)} ${'CPU s'.padStart(7)}`,
  );
  for (const r of runs) {
    console.log(
      `${r.name.padEnd(28)} ${r.seconds.toFixed(2).padStart(8)} ${r.filesPerSecond.toFixed(0).padStart(9)} ${`${r.peakRssMiB.toFixed(0)} MiB`.padStart(10)} ${r.cpuSeconds.toFixed(1).padStart(7)}`,
    );
  }
  const vsExif = courier.filesPerSecond / exif.filesPerSecond;
  const vsFast2 = courier.filesPerSecond / fast2.filesPerSecond;
  console.log('');
  console.log(
    `courier / exiftool -json -r:        ${vsExif.toFixed(2)}x (target ≥ 2x) ${vsExif >= 2 ? 'ok' : 'MISSED'}`,
  );
  console.log(
    `courier / exiftool -fast2 -json -r: ${vsFast2.toFixed(2)}x (target ≥ 4x, masters QC on) ${vsFast2 >= 4 ? 'ok' : 'MISSED'}`,
  );

  const masters = `${dir}-masters`;
  await generateMasters(masters);
  const check = await buildDuplicateCheck(join(work, 'duplicate-check'));
  await compareWithSha256sum('Same audio, catalog', dir, check, work);
  await compareWithSha256sum('Same audio, masters', masters, check, work);
  await rm(work, { recursive: true, force: true });
}

await main();
