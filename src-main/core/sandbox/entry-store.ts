import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { readJsonIfExists, writeFileAtomic } from '../files/atomic-file.js';
import {
  type CompactionPolicy,
  DEFAULT_COMPACTION,
  EntryLog,
  logLines,
  syncDir,
} from './entry-log.js';

/** How an entry was created. */
export type IngestionMode = 'json' | 'audio_only' | 'audio_mapping';

/**
 * Where an entry is in the process of section 3 (the interface names no states; these are the
 * sandbox's): stored by the request, being analysed, analysed, then available once a product
 * computation run has included it.
 */
export type EntryState = 'stored' | 'analyzing' | 'analyzed' | 'available';

/** A track entry of a catalog, as the inspection route shows it. */
export interface Entry {
  catalog_id: string;
  outer_id: string;
  mode: IngestionMode;
  ingestion_id: string;
  metadata: Record<string, unknown>;
  /** Where the entry's audio is in the bucket, or null when it has none. */
  audio_key: string | null;
  state: EntryState;
  created_at: number;
  updated_at: number;
  /** Tags computed by the tagging product, once available. */
  tags?: { category: string; name: string }[];
}

/** Which entries a page shows: in store order, optionally only some states or outer_ids. */
export interface EntryQuery {
  offset?: number;
  /** At most this many (all when absent). */
  limit?: number;
  states?: ReadonlySet<EntryState>;
  outerIds?: ReadonlySet<string>;
}

/** A page of a catalog's entries and how many match in all. */
export interface EntryPage {
  entries: Entry[];
  total: number;
}

/**
 * All entries, in memory and in one append-only log per catalog (`entries/<catalog_id>.jsonl`,
 * see entry-log.ts): a put appends its entries in one fsync'd write before it resolves, so a stop
 * at any moment loses nothing that was answered, and its cost does not grow with the catalog.
 * Replaying a log gives back the same order: an overwritten entry moves to the end. A catalog
 * stored by an earlier version as one JSON document (`<catalog_id>.json`) is moved into a log
 * at open.
 */
export class EntryStore {
  private readonly catalogs = new Map<string, Map<string, Entry>>();
  private readonly logs = new Map<string, EntryLog<Entry>>();
  /** Keys (`catalog_id`, NUL, `outer_id`) of the entries in each state, for processing. */
  private readonly byState = new Map<EntryState, Set<string>>(
    (['stored', 'analyzing', 'analyzed', 'available'] as const).map((s) => [s, new Set()]),
  );

  private constructor(
    private readonly dir: string,
    private readonly policy: CompactionPolicy,
  ) {}

  /** Loads every catalog's entries from disk (catalogs found there as well as `catalogIds`). */
  static async open(
    dir: string,
    catalogIds: string[],
    policy: CompactionPolicy = DEFAULT_COMPACTION,
  ): Promise<EntryStore> {
    const store = new EntryStore(join(dir, 'entries'), policy);
    await mkdir(store.dir, { recursive: true });
    const files = await readdir(store.dir);
    const ids = new Set(catalogIds);
    for (const file of files) {
      const match = /^(.+)\.jsonl?$/.exec(file);
      if (match) ids.add(match[1]!);
    }
    for (const id of ids) await store.openCatalog(id);
    return store;
  }

  private async openCatalog(catalogId: string): Promise<void> {
    const file = join(this.dir, `${catalogId}.jsonl`);
    const legacy = join(this.dir, `${catalogId}.json`);
    const old = await readJsonIfExists<Entry[]>(legacy);
    if (old && !(await exists(file))) {
      // Written whole and renamed in, so a crash leaves either the document or the log.
      await writeFileAtomic(file, logLines(old));
      await syncDir(this.dir);
    }
    const catalog = this.catalog(catalogId);
    const log = await EntryLog.open<Entry>(
      file,
      (entry) => this.remember(catalog, entry),
      () => ({ count: catalog.size, values: catalog.values() }),
      this.policy,
    );
    this.logs.set(catalogId, log);
    if (old) await rm(legacy, { force: true });
  }

  private catalog(catalogId: string): Map<string, Entry> {
    let catalog = this.catalogs.get(catalogId);
    if (!catalog) this.catalogs.set(catalogId, (catalog = new Map()));
    return catalog;
  }

  private remember(catalog: Map<string, Entry>, entry: Entry): void {
    const previous = catalog.get(entry.outer_id);
    const key = `${entry.catalog_id}\u0000${entry.outer_id}`;
    if (previous) this.byState.get(previous.state)?.delete(key);
    // Re-inserting moves an overwritten entry to the end, so lists read newest last.
    catalog.delete(entry.outer_id);
    catalog.set(entry.outer_id, entry);
    this.byState.get(entry.state)?.add(key);
  }

  /** The entries of a catalog, oldest first. */
  list(catalogId: string): Entry[] {
    return [...(this.catalogs.get(catalogId)?.values() ?? [])];
  }

  /** A page of a catalog's entries, oldest first, with the number of entries that match. */
  page(catalogId: string, query: EntryQuery = {}): EntryPage {
    const catalog = this.catalogs.get(catalogId) ?? new Map<string, Entry>();
    const { offset = 0, limit = Infinity, states, outerIds } = query;
    if (!states && !outerIds) {
      const all = [...catalog.values()];
      return { entries: all.slice(offset, offset + limit), total: all.length };
    }
    const candidates =
      outerIds && outerIds.size < catalog.size
        ? [...outerIds].flatMap((id) => catalog.get(id) ?? [])
        : catalog.values();
    const matching: Entry[] = [];
    for (const entry of candidates) {
      if (states && !states.has(entry.state)) continue;
      if (outerIds && !outerIds.has(entry.outer_id)) continue;
      matching.push(entry);
    }
    // Looked up by outer_id, they must still be shown in store order.
    if (outerIds && outerIds.size < catalog.size) {
      const order = new Map([...catalog.keys()].map((id, i) => [id, i]));
      matching.sort((a, b) => order.get(a.outer_id)! - order.get(b.outer_id)!);
    }
    return { entries: matching.slice(offset, offset + limit), total: matching.length };
  }

  /** Every entry of every catalog. */
  all(): Entry[] {
    return [...this.catalogs.values()].flatMap((entries) => [...entries.values()]);
  }

  /** Every entry in `state`, in no particular order (without a pass over every entry). */
  inState(state: EntryState): Entry[] {
    const found: Entry[] = [];
    for (const key of this.byState.get(state) ?? []) {
      const cut = key.indexOf('\u0000');
      const entry = this.get(key.slice(0, cut), key.slice(cut + 1));
      if (entry) found.push(entry);
    }
    return found;
  }

  /** One entry, if it exists. */
  get(catalogId: string, outerId: string): Entry | undefined {
    return this.catalogs.get(catalogId)?.get(outerId);
  }

  /**
   * Stores entries (replacing those with the same outer_id) and resolves once each catalog's log
   * has them on disk: one write per catalog, whatever the number of entries.
   */
  async put(entries: Entry[]): Promise<void> {
    const touched = new Map<string, Entry[]>();
    for (const entry of entries) {
      this.remember(this.catalog(entry.catalog_id), entry);
      const list = touched.get(entry.catalog_id);
      if (list) list.push(entry);
      else touched.set(entry.catalog_id, [entry]);
    }
    await Promise.all(
      [...touched].map(([id, list]) => this.log(id).then((log) => log.append(list))),
    );
  }

  private log(catalogId: string): Promise<EntryLog<Entry>> {
    const log = this.logs.get(catalogId);
    if (log) return Promise.resolve(log);
    // A catalog first seen in a put (the sandbox only puts to known catalogs, opened at start).
    const catalog = this.catalog(catalogId);
    return EntryLog.open<Entry>(
      join(this.dir, `${catalogId}.jsonl`),
      () => undefined,
      () => ({ count: catalog.size, values: catalog.values() }),
      this.policy,
    ).then((opened) => {
      const existing = this.logs.get(catalogId);
      if (existing) {
        void opened.close();
        return existing;
      }
      this.logs.set(catalogId, opened);
      return opened;
    });
  }

  /** Records in a catalog's log (live and overwritten), to watch compaction. */
  logSize(catalogId: string): number {
    return this.logs.get(catalogId)?.size ?? 0;
  }

  /** Waits for every pending write and closes the logs. */
  async close(): Promise<void> {
    await Promise.all([...this.logs.values()].map((log) => log.close()));
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
