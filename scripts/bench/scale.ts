/**
 * `npm run bench:scale`: a 100,000-track back catalog beside a 10,000-track one (#20). Makes (or
 * reuses) the generated catalogs (`scale-catalog.ts`), measures the app at both sizes
 * (`app-figures.ts`, the same code as `bench:ui`), the sandbox's store (`sandbox-scale.ts`), a
 * delivery killed and resumed (`delivery-scale.ts`) and 10,000 small files against aws s3 cp
 * (`upload.ts`), and prints one table: figure | 10k | 100k | target.
 *
 * `--sizes 10000,100000` (default) picks the sizes; BENCH_SCALE_DIR the folder the catalogs are
 * kept in between runs (default ~/.cache/courier-bench).
 */
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { missingFixtureTools } from '../../test/support/audio-fixtures.js';
import { type AppFigures, measureApp } from './app-figures.js';
import { type DeliveryScaleReport, measureDeliveryScale } from './delivery-scale.js';
import { measureSandboxScale, type SandboxScaleReport } from './sandbox-scale.js';
import { generateScaleCatalog, type ScaleCatalog } from './scale-catalog.js';
import { measureSendCost, type SendCost } from './send-cost.js';

const sizesFlag = process.argv.indexOf('--sizes');
const sizes = (sizesFlag >= 0 ? process.argv[sizesFlag + 1]! : '10000,100000')
  .split(',')
  .map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('bench:scale: --sizes needs whole numbers, e.g. --sizes 10000,100000');
  process.exit(1);
}
const root = process.env.BENCH_SCALE_DIR ?? join(homedir(), '.cache', 'courier-bench');

/** One row of the table: a figure per size, and its target. */
interface Row {
  figure: string;
  values: string[];
  target: string;
}

/** One bench's report per size, as rows: `cell` writes a report's value for the figure. */
function reportRows<R>(
  reports: R[],
  figures: Array<[figure: string, cell: (report: R) => string, target: string]>,
): Row[] {
  return figures.map(([figure, cell, target]) => ({
    figure,
    values: reports.map(cell),
    target,
  }));
}

/** The sandbox's store at each size (`sandbox-scale.ts`). */
async function sandboxRows(log: (stage: string) => void): Promise<Row[]> {
  const reports: SandboxScaleReport[] = [];
  for (const size of sizes) {
    log(`sandbox store with ${size} entries`);
    reports.push(await measureSandboxScale(size));
  }
  const pair = (p: { start: number; end: number }) => `${ms(p.start)} → ${ms(p.end)}`;
  return reportRows(reports, [
    ['sandbox: put of 25 entries, first → last 100', (r) => pair(r.putMsPerRequest), 'flat'],
    ['sandbox: slowest inspection answer', (r) => ms(r.inspectionMaxMs), '< 1 s'],
    ['sandbox: start on the full store', (r) => s(r.sandboxStartMs), ''],
  ]);
}

/** A delivery of each size to the sandbox, killed half way and resumed (`delivery-scale.ts`). */
async function deliveryRows(log: (stage: string) => void): Promise<Row[]> {
  const reports: DeliveryScaleReport[] = [];
  for (const size of sizes) {
    log(`delivery of ${size} tracks`);
    reports.push(await measureDeliveryScale(size, { log }));
  }
  const pair = (p: { start: number; end: number }) => `${ms(p.start)} → ${ms(p.end)}`;
  return reportRows(reports, [
    ['delivery: requests sent / planned', (r) => `${r.requests} / ${r.requestsPlanned}`, ''],
    [
      'delivery: token requests (lifetime)',
      (r) => `${r.tokenRequests.total} (${r.tokenLifetimeMs / 1000} s)`,
      'one per lifetime used',
    ],
    ['delivery: persisting a batch, first → last', (r) => pair(r.persistAloneMsPerBatch), 'flat'],
    [
      'delivery: peak RSS',
      (r) => `${Math.max(r.peakRssMb.killed, r.peakRssMb.resumed).toFixed(0)} MB`,
      '< 500 MB',
    ],
    [
      'delivery: History opens (during / after)',
      (r) => `${ms(r.historyOpenMs.during)} / ${ms(r.historyOpenMs.after)}`,
      '< 1 s',
    ],
    [
      'delivery: Transfers opens (during / after)',
      (r) => `${ms(r.transfersOpenMs.during)} / ${ms(r.transfersOpenMs.after)}`,
      '< 1 s',
    ],
    ['delivery: resume after kill -9 plans in', (r) => s(r.resumePlanMs), '< 30 s'],
  ]);
}

/**
 * Many small files, the same for every size: 10,000 files of 1 MiB uploaded by Courier and by
 * `aws s3 cp --recursive` to each server in one run (`upload.ts`, a fresh server for each tool),
 * the ratio of their times, and how busy the server was during each tool's run.
 */
async function smallFilesRow(log: (stage: string) => void): Promise<Row> {
  const ratios: string[] = [];
  for (const server of ['moto', 'sandbox']) {
    log(`10,000 small files to ${server}`);
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./upload.ts', import.meta.url)),
        ...['--files', '10000', '--mib', '10000', '--server', server, '--rounds', '1'],
      ],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );
    const ratio = /ratio aws \/ courier \(whole process\): ([\d.]+)×/.exec(run.stdout)?.[1];
    // How busy the server was says whether a tool or the server set the pace (upload.ts).
    const busy = /server busy (\S+ %) \/ (\S+ %)/.exec(run.stdout);
    ratios.push(
      ratio
        ? `${server} ${ratio}×${busy ? ` (server busy ${busy[1]} / ${busy[2]})` : ''}`
        : `${server} failed (exit ${run.status})`,
    );
  }
  return {
    figure: 'small files (10,000 × 1 MiB): aws time / courier time',
    values: sizes.map(() => ratios.join(', ')),
    target: '≥ 1.25× (courier ≤ 0.8× aws)',
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The app's rows of the table. */
function appRows(catalogs: ScaleCatalog[], runs: AppFigures[], send: SendCost): Row[] {
  const row = (figure: string, value: (f: AppFigures) => string, target: string): Row => ({
    figure,
    values: runs.map(value),
    target,
  });
  return [
    {
      figure: 'catalog generated (files, albums, MB)',
      values: catalogs.map(
        (c) =>
          `${c.count} files, ${c.albums} albums, ${(c.bytes / 1e6).toFixed(0)} MB${c.reused ? ' (reused)' : ` in ${c.seconds.toFixed(1)} s`}`,
      ),
      target: 'reused between runs',
    },
    row('add → first rows shown', (f) => s(f.firstRows), ''),
    row('add → all rows shown with tags', (f) => s(f.allRows), '< 180 s'),
    row('scroll frame work p95', (f) => ms(f.scrollWorkP95), '< 16 ms'),
    row(
      'scroll frame work p50 / max',
      (f) => `${ms(f.scrollWorkP50)} / ${ms(f.scrollWorkMax)}`,
      '',
    ),
    row('scroll frame interval p95', (f) => ms(f.scrollIntervalP95), ''),
    row('bulk edit, shown', (f) => `${ms(f.bulkShown)} (${f.bulk} rows)`, '< 200 ms'),
    row('longest pause once the bulk edit shows', (f) => ms(f.bulkPause), '< 50 ms'),
    row('longest pause saving the added library', (f) => ms(f.savePauseAfterAdd), '< 50 ms'),
    row('longest pause saving the bulk edit', (f) => ms(f.savePauseAfterEdit), '< 50 ms'),
    {
      // Most of those pauses are sends, which the harness's DevTools makes dearer (send-cost.ts).
      figure: `… of which a ${(send.bytes / 1000).toFixed(0)} KB save send: driven / unwatched`,
      values: runs.map(() => `${ms(send.driven)} / ${ms(send.plain)}`),
      target: '',
    },
    row(
      'bytes written saving the bulk edit',
      (f) => `${(f.editSaveBytes / 1024).toFixed(0)} KiB`,
      '',
    ),
    row('JS heap used', (f) => `${f.heapMb.toFixed(0)} MB`, '< 500 MB'),
    row('reopen → saved rows shown', (f) => s(f.reopen), '< 5 s'),
  ];
}

function print(rows: Row[]): void {
  const header = ['figure', ...sizes.map((n) => `${n / 1000}k`), 'target'];
  const lines = [header, ...rows.map((r) => [r.figure, ...r.values, r.target])];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  const format = (l: string[]) => `| ${l.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines.slice(1)) console.log(format(l));
}

async function main(): Promise<void> {
  const missing = missingFixtureTools();
  if (missing.length > 0) {
    console.error(`bench:scale needs ${missing.join(', ')}`);
    process.exit(1);
  }
  const started = Date.now();
  const log = (stage: string) =>
    console.log(`  … ${stage} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const catalogs: ScaleCatalog[] = [];
  for (const size of sizes) {
    const catalog = await generateScaleCatalog(join(root, `scale-${size}`), size);
    catalogs.push(catalog);
    log(
      `${size} files in ${catalog.dir} (${catalog.reused ? 'reused' : `made in ${catalog.seconds.toFixed(1)} s`})`,
    );
  }
  const runs: AppFigures[] = [];
  for (const catalog of catalogs) {
    log(`app with ${catalog.count} tracks`);
    runs.push(
      await measureApp(catalog.dir, catalog.count, {
        // The issue's bulk edit: 10,000 rows (all of them at 10,000).
        bulk: 10_000,
        log: (stage) => log(`${catalog.count}: ${stage}`),
      }),
    );
  }
  log('WebSocket send, driven and unwatched');
  const send = await measureSendCost();
  const rows = [
    ...appRows(catalogs, runs, send),
    ...(await sandboxRows(log)),
    ...(await deliveryRows(log)),
    await smallFilesRow(log),
  ];
  console.log('');
  print(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
