import { createHash } from 'node:crypto';

import { withFields } from '../objects.js';
import type { Bucket } from './bucket.js';
import type { Entry, EntryStore } from './entry-store.js';
import { VOCABULARY } from './vocabulary.js';

/** An entry as of one update: catalog, outer_id, updated_at. */
type Version = [string, string, number];

/** Timings of steps 2 and 3 (section 3), shortened from hours to a configurable moment. */
export interface ProcessingTimings {
  /** How long an entry's audio analysis takes. */
  analysisMs: number;
  /** How often a product computation run happens. */
  productIntervalMs: number;
}

/**
 * Steps 2 and 3 of section 3: entries go stored → analyzing → analyzed on their own, and each
 * product computation run makes analysed entries available and writes the tagging product's
 * CSV export to `csv_outputs/<catalog_id>/tags-<run time>.csv`. Unfinished work resumes after a
 * restart because it is read from the entry store.
 */
export class Processing {
  private readonly timers = new Set<NodeJS.Timeout>();
  private productTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly entries: EntryStore,
    private readonly bucket: Bucket,
    private readonly timings: ProcessingTimings,
    private readonly now: () => number,
  ) {}

  /** Starts the schedule and resumes entries left unfinished by a previous run. */
  start(): void {
    this.schedule(this.entries.inState('stored'));
    this.finishLater(
      this.entries.inState('analyzing').map((e) => [e.catalog_id, e.outer_id, e.updated_at]),
    );
    this.productTimer = setInterval(
      () => this.serially(() => this.computeProducts()),
      this.timings.productIntervalMs,
    );
  }

  /** Queues newly stored entries for analysis. */
  schedule(stored: Entry[]): void {
    if (this.closed || stored.length === 0) return;
    const keys: Version[] = stored.map((e) => [e.catalog_id, e.outer_id, e.updated_at]);
    const begin = setTimeout(() => {
      this.timers.delete(begin);
      this.serially(async () => {
        // Each step only moves the version it scheduled: a re-ingested entry has its own timers.
        this.finishLater(await this.advance(keys, 'stored', 'analyzing'));
      });
    }, 0);
    this.timers.add(begin);
  }

  private finishLater(analyzing: Version[]): void {
    if (this.closed || analyzing.length === 0) return;
    const finish = setTimeout(() => {
      this.timers.delete(finish);
      this.serially(async () => {
        await this.advance(analyzing, 'analyzing', 'analyzed');
      });
    }, this.timings.analysisMs);
    this.timers.add(finish);
  }

  /** Stops timers and waits for the step in progress. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.productTimer) clearInterval(this.productTimer);
    await this.running;
  }

  private serially(step: () => Promise<void>): void {
    if (this.closed) return;
    this.running = this.running.then(step).catch((error: unknown) => {
      process.stderr.write(`sandbox: processing step failed: ${String(error)}\n`);
    });
  }

  private async advance(
    keys: Version[],
    from: Entry['state'],
    to: Entry['state'],
  ): Promise<Version[]> {
    const changed: Entry[] = [];
    for (const [catalogId, outerId, version] of keys) {
      const entry = this.entries.get(catalogId, outerId);
      if (!entry || entry.state !== from || entry.updated_at !== version) continue;
      changed.push(withFields(entry, { state: to, updated_at: Math.max(this.now(), version + 1) }));
    }
    if (changed.length > 0) await this.entries.put(changed);
    return changed.map((e) => [e.catalog_id, e.outer_id, e.updated_at]);
  }

  private async computeProducts(): Promise<void> {
    // By the store's state index: a product run costs the entries it moves, not the catalog.
    const ready = this.entries.inState('analyzed');
    if (ready.length === 0) return;
    const runAt = this.now();
    const done = ready.map((e) =>
      withFields(e, { state: 'available' as const, updated_at: runAt, tags: tagsFor(e.outer_id) }),
    );
    const byCatalog = new Map<string, Entry[]>();
    for (const entry of done) {
      const list = byCatalog.get(entry.catalog_id);
      if (list) list.push(entry);
      else byCatalog.set(entry.catalog_id, [entry]);
    }
    for (const [catalogId, list] of byCatalog) {
      await this.bucket.put(
        `csv_outputs/${catalogId}/tags-${runAt}.csv`,
        Buffer.from(tagsCsv(list)),
        'text/csv',
      );
    }
    await this.entries.put(done);
  }
}

/** Deterministic fake tagging: two moods, two genres and one instrument per outer_id. */
export function tagsFor(outerId: string): { category: string; name: string }[] {
  const seed = createHash('sha256').update(outerId).digest();
  const pick = (category: string, count: number, offset: number) => {
    const pool = VOCABULARY.filter((t) => t.category.name === category);
    const names = new Set<string>();
    for (let i = 0; names.size < Math.min(count, pool.length); i++) {
      const position = i < 15 ? seed.readUInt16BE((offset + i * 2) % 30) : i;
      names.add(pool[position % pool.length]!.name);
    }
    return [...names].map((name) => ({ category, name }));
  };
  return [...pick('Mood', 2, 0), ...pick('Genre', 2, 8), ...pick('Instrument', 1, 16)];
}

function csvField(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The tagging export: one row per entry and tag. */
export function tagsCsv(entries: Entry[]): string {
  const rows = [['catalog_id', 'outer_id', 'ingestion_id', 'title', 'category', 'tag']];
  for (const entry of entries) {
    for (const tag of entry.tags ?? []) {
      rows.push([
        entry.catalog_id,
        entry.outer_id,
        entry.ingestion_id,
        String(entry.metadata.title ?? ''),
        tag.category,
        tag.name,
      ]);
    }
  }
  return `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
