import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { readJsonIfExists, writeJsonAtomic } from '../files/atomic-file.js';

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

/**
 * All entries, one JSON file per catalog under `entries/`, rewritten atomically on every change
 * and in order, so a stop at any moment loses nothing that was answered.
 */
export class EntryStore {
  private readonly catalogs = new Map<string, Map<string, Entry>>();
  private writes = new Map<string, Promise<void>>();

  private constructor(private readonly dir: string) {}

  /** Loads every catalog's entries from disk. */
  static async open(dir: string, catalogIds: string[]): Promise<EntryStore> {
    const store = new EntryStore(join(dir, 'entries'));
    const files = await readdir(store.dir).catch(() => [] as string[]);
    const ids = new Set([
      ...catalogIds,
      ...files.filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)),
    ]);
    for (const id of ids) {
      const list = (await readJsonIfExists<Entry[]>(store.file(id))) ?? [];
      store.catalogs.set(id, new Map(list.map((entry) => [entry.outer_id, entry])));
    }
    return store;
  }

  private file(catalogId: string): string {
    return join(this.dir, `${catalogId}.json`);
  }

  /** The entries of a catalog, oldest first. */
  list(catalogId: string): Entry[] {
    return [...(this.catalogs.get(catalogId)?.values() ?? [])];
  }

  /** Every entry of every catalog. */
  all(): Entry[] {
    return [...this.catalogs.values()].flatMap((entries) => [...entries.values()]);
  }

  /** One entry, if it exists. */
  get(catalogId: string, outerId: string): Entry | undefined {
    return this.catalogs.get(catalogId)?.get(outerId);
  }

  /** Stores entries (replacing those with the same outer_id) and persists their catalogs. */
  async put(entries: Entry[]): Promise<void> {
    const touched = new Set<string>();
    for (const entry of entries) {
      let catalog = this.catalogs.get(entry.catalog_id);
      if (!catalog) this.catalogs.set(entry.catalog_id, (catalog = new Map()));
      // Re-inserting moves an overwritten entry to the end, so lists read newest last.
      catalog.delete(entry.outer_id);
      catalog.set(entry.outer_id, entry);
      touched.add(entry.catalog_id);
    }
    await Promise.all([...touched].map((id) => this.persist(id)));
  }

  /** Waits for every pending write. */
  async flush(): Promise<void> {
    await Promise.all(this.writes.values());
  }

  private persist(catalogId: string): Promise<void> {
    const previous = this.writes.get(catalogId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => writeJsonAtomic(this.file(catalogId), this.list(catalogId)));
    this.writes.set(catalogId, next);
    return next;
  }
}
