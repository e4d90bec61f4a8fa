/**
 * `npm run bench:ui`: the library grid in Chromium (through the browser host) with 10,000
 * generated tagged files: time from adding the folder to every row shown with its tags, scroll
 * frame times while the grid is scrolled programmatically, the time of a bulk edit of 1,000
 * rows, the longest pause while the library is saved, the JS heap and the time a reopened app
 * takes to show the saved rows (measured by `app-figures.ts`, shared with `bench:scale`). Targets: p95 frame under 16 ms, bulk edit under 200 ms, heap under
 * 300 MB.
 *
 * Files: one template per format made by ffmpeg, copied and re-tagged by mutagen in one Python
 * run. BENCH_UI_DIR keeps the folder between runs; `--tracks N` (or BENCH_UI_FILES) changes the
 * count, in a folder of its own so the 10,000-file one is not regenerated.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { missingFixtureTools } from '../../test/support/audio-fixtures.js';
import { measureApp } from './app-figures.js';
import { measureSendCost } from './send-cost.js';
import { type CatalogMix, generateTaggedCatalog } from './tagged-catalog.js';

const tracksFlag = process.argv.indexOf('--tracks');
const count = Number(
  tracksFlag >= 0 ? process.argv[tracksFlag + 1] : (process.env.BENCH_UI_FILES ?? 10_000),
);
if (!Number.isInteger(count) || count < 1) {
  console.error('bench:ui: --tracks needs a whole number of tracks, e.g. --tracks 2000');
  process.exit(1);
}

const mix: CatalogMix = [
  { format: 'mp3', family: 'id3v2.4' },
  { format: 'mp3', family: 'id3v2.3' },
  { format: 'flac', family: 'vorbis' },
  { format: 'ogg', family: 'vorbis' },
  { format: 'm4a-aac', family: 'mp4' },
  { format: 'wav', family: 'id3v2.4' },
];

const generate = (dir: string) => generateTaggedCatalog(dir, count, mix);

async function main(): Promise<void> {
  const missing = missingFixtureTools();
  if (missing.length > 0) {
    console.error(`bench:ui needs ${missing.join(', ')}`);
    process.exit(1);
  }
  const dir =
    process.env.BENCH_UI_DIR ??
    join(tmpdir(), 'courier-bench-ui', count === 10_000 ? 'catalog' : `catalog-${count}`);
  const started = Date.now();
  await generate(dir);
  console.log(
    `files: ${count} in ${dir} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );

  const log = (stage: string) =>
    console.log(`  … ${stage} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const f = await measureApp(dir, count, { bulk: 1000, log });
  console.log('');
  console.log(`tracks:                             ${f.tracks}`);
  console.log(`add → first rows shown:             ${(f.firstRows / 1000).toFixed(2)} s`);
  console.log(`add → all rows shown with tags:     ${(f.allRows / 1000).toFixed(2)} s`);
  console.log(
    `scroll frame interval p50 / p95:    ${f.scrollIntervalP50.toFixed(1)} / ${f.scrollIntervalP95.toFixed(1)} ms`,
  );
  console.log(
    `scroll frame work p50 / p95 / max:  ${f.scrollWorkP50.toFixed(1)} / ${f.scrollWorkP95.toFixed(1)} / ${f.scrollWorkMax.toFixed(1)} ms (target p95 < 16 ms) ${f.scrollWorkP95 < 16 ? 'ok' : 'MISSED'}`,
  );
  console.log(
    `bulk edit of ${f.bulk} rows, shown:${' '.repeat(Math.max(1, 9 - String(f.bulk).length))}${f.bulkShown.toFixed(0)} ms (target < 200 ms) ${f.bulkShown < 200 ? 'ok' : 'MISSED'}`,
  );
  console.log(
    `  … longest pause once it shows:    ${f.bulkPause.toFixed(0)} ms (findings of all tracks, save; target < 50 ms) ${f.bulkPause < 50 ? 'ok' : 'MISSED'}`,
  );
  console.log(
    `longest pause while saving:         ${f.savePauseAfterAdd.toFixed(0)} ms after the add, ${f.savePauseAfterEdit.toFixed(0)} ms after the edit (${(f.editSaveBytes / 1024).toFixed(0)} KiB written)`,
  );
  const send = await measureSendCost();
  console.log(
    `  … a ${(send.bytes / 1000).toFixed(0)} KB save send, driven / unwatched: ${send.driven.toFixed(1)} / ${send.plain.toFixed(1)} ms (the harness's DevTools copies every frame)`,
  );
  console.log(
    `JS heap used:                       ${f.heapMb.toFixed(0)} MB (target < 300 MB) ${f.heapMb < 300 ? 'ok' : 'MISSED'}`,
  );
  console.log(`reopened → saved rows shown:        ${(f.reopen / 1000).toFixed(2)} s`);
  console.log(`summary after the edit:             ${f.summary}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
