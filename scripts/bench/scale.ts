/**
 * `npm run bench:scale`: a 100,000-track back catalog beside a 10,000-track one (#20). Makes (or
 * reuses) the generated catalogs (`scale-catalog.ts`), measures the app at both sizes
 * (`app-figures.ts`, the same code as `bench:ui`), adds the sandbox's and the delivery's figures
 * when their benches are present, and prints one table: figure | 10k | 100k | target.
 *
 * `--sizes 10000,100000` (default) picks the sizes; BENCH_SCALE_DIR the folder the catalogs are
 * kept in between runs (default ~/.cache/courier-bench).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

import { missingFixtureTools } from '../../test/support/audio-fixtures.js';
import { type AppFigures, measureApp } from './app-figures.js';
import { generateScaleCatalog, type ScaleCatalog } from './scale-catalog.js';

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

/** What another bench gives for a size: rows of figures, or why it was not measured. */
type Figures = Array<{ figure: string; value: string; target?: string }>;

/**
 * Runs `name` from `file` (a bench written on another branch) for each size, if the file is
 * there: its figures as rows, or one row saying why not.
 */
async function optionalBench(file: string, name: string, sizes: number[]): Promise<Row[]> {
  let measure: ((tracks: number) => Promise<Figures>) | undefined;
  try {
    const module = (await import(file)) as Record<string, unknown>;
    measure = module[name] as typeof measure;
  } catch {
    measure = undefined;
  }
  if (typeof measure !== 'function') {
    return [{ figure: name, values: sizes.map(() => `not measured (${file} absent)`), target: '' }];
  }
  const bySize: Figures[] = [];
  for (const size of sizes) {
    try {
      bySize.push(await measure(size));
    } catch (error) {
      bySize.push([{ figure: name, value: `failed: ${(error as Error).message.split('\n')[0]}` }]);
    }
  }
  const figures = [...new Set(bySize.flatMap((list) => list.map((f) => f.figure)))];
  return figures.map((figure) => ({
    figure,
    values: bySize.map((list) => list.find((f) => f.figure === figure)?.value ?? '—'),
    target: bySize.flatMap((list) => list.find((f) => f.figure === figure)?.target ?? [])[0] ?? '',
  }));
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The app's rows of the table. */
function appRows(catalogs: ScaleCatalog[], runs: AppFigures[]): Row[] {
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
    row('bulk edit, revalidated', (f) => ms(f.bulkValidated), ''),
    row('longest pause saving the added library', (f) => ms(f.savePauseAfterAdd), '< 50 ms'),
    row('longest pause saving the bulk edit', (f) => ms(f.savePauseAfterEdit), '< 50 ms'),
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
  const rows = [
    ...appRows(catalogs, runs),
    ...(await optionalBench('./sandbox-scale.js', 'measureSandboxScale', sizes)),
    ...(await optionalBench('./delivery-scale.js', 'measureDeliveryScale', sizes)),
    {
      figure: 'small-files upload vs aws s3 cp --recursive',
      values: sizes.map(() => 'not measured (TODO: upload-scale bench, #20)'),
      target: '≤ 0.8×',
    },
  ];
  console.log('');
  print(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
