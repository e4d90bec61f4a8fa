/**
 * Writes to a sandbox entry store in a child process for crash tests: `npx tsx
 * test/support/entry-store-child.ts DATA_DIR CATALOG LIVE BATCH`. Puts LIVE entries, then
 * overwrites them BATCH at a time, round after round, with a small compaction threshold so the
 * log is rewritten often. After each put resolves it prints `{"from","to","version"}`: entries
 * `from`…`to − 1` are on disk with `metadata.version` = `version`. Runs until killed.
 */
import { EntryStore } from '../../src-main/core/sandbox/entry-store.js';
import type { Entry } from '../../src-main/core/sandbox/index.js';

const [dataDir, catalog, liveText, batchText] = process.argv.slice(2);
if (!dataDir || !catalog || !liveText || !batchText) {
  process.stderr.write('usage: entry-store-child.ts DATA_DIR CATALOG LIVE BATCH\n');
  process.exit(2);
}
const live = Number(liveText);
const batch = Number(batchText);

/** Entry `i` as of `version`, about the size a json delivery stores. */
function childEntry(catalogId: string, i: number, version: number): Entry {
  return {
    catalog_id: catalogId,
    outer_id: `CRASH-${String(i).padStart(6, '0')}`,
    mode: 'json',
    ingestion_id: String(version),
    metadata: { title: `Crash test ${i}`, version, padding: 'x'.repeat(400) },
    audio_key: null,
    state: 'stored',
    created_at: 1,
    updated_at: version,
  };
}

const store = await EntryStore.open(dataDir, [catalog], { ratio: 2, minRecords: 1000 });
const ack = (from: number, to: number, version: number) =>
  process.stdout.write(`${JSON.stringify({ from, to, version })}\n`);
for (let i = 0; i < live; i += 1000) {
  const to = Math.min(live, i + 1000);
  await store.put(Array.from({ length: to - i }, (_, k) => childEntry(catalog, i + k, 0)));
  ack(i, to, 0);
}
for (let version = 1; ; version++) {
  for (let i = 0; i < live; i += batch) {
    const to = Math.min(live, i + batch);
    await store.put(Array.from({ length: to - i }, (_, k) => childEntry(catalog, i + k, version)));
    ack(i, to, version);
  }
}
