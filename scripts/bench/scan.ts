/**
 * `npm run bench:scan`: whole-process files per second of `courier scan DIR --json` (tags and
 * masters QC: properties and the integrity check of every file) against
 * `exiftool -json -r` and `exiftool -fast2 -json -r` on the same ≥ 5,000 generated tagged files
 * of mixed formats, measured in one run, with each process tree's peak RSS.
 *
 * Files: one template per format is made by ffmpeg, then copied and re-tagged by mutagen in one
 * Python run (never ffmpeg per file). BENCH_SCAN_DIR keeps the folder between runs;
 * BENCH_SCAN_FILES changes the count.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { missingFixtureTools } from '../../test/support/audio-fixtures.js';
import { type CatalogMix, generateTaggedCatalog } from './tagged-catalog.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const count = Number(process.env.BENCH_SCAN_FILES ?? 5040);

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

async function main(): Promise<void> {
  const missing = missingFixtureTools();
  if (spawnSync('exiftool', ['-ver']).status !== 0) missing.push('exiftool');
  if (!existsSync('/usr/bin/time')) missing.push('/usr/bin/time');
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
  const runs = [
    await measure(
      'courier scan --json',
      [process.execPath, 'scripts/courier.mjs', 'scan', dir, '--json'],
      join(work, 'courier.json'),
    ),
    await measure(
      'exiftool -json -r',
      ['exiftool', '-json', '-r', dir],
      join(work, 'exiftool.json'),
    ),
    await measure(
      'exiftool -fast2 -json -r',
      ['exiftool', '-fast2', '-json', '-r', dir],
      join(work, 'exiftool-fast2.json'),
    ),
  ];
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
  await rm(work, { recursive: true, force: true });
  const [courier, exif, fast2] = runs as [Measure, Measure, Measure];
  console.log('');
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
}

await main();
