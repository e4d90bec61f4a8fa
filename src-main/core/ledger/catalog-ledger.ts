/**
 * The catalog ledger: for one profile and catalog, what the service last accepted from this
 * workstation, track by track — the audio's identity (MD5, with size and mtime so an unchanged
 * file is not hashed again), the metadata exactly as sent, where the audio was, and which
 * delivery sent it when. Deliveries compare against it to send only what changed.
 *
 * Storage: an append-only JSON-lines log per catalog under `<dataDir>/ledger/`. Each accepted
 * request appends its tracks in one write and fsyncs, so the cost of an update is the size of the
 * batch, not of the catalog; a crash can only cut the last line short, and a short line is
 * ignored when read (and cut off before the next append). The log is rewritten (atomically)
 * when it holds more than twice as many lines as live entries. Every append and rewrite holds an
 * OS-released lock on the log, so the app and the CLI share it safely. See docs/ledger.md for
 * why not SQLite.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';

import type { DeliveryMode } from '../delivery/delivery-summary.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import { acquireProcessLock } from '../files/process-lock.js';
import type { Track } from '../model/track.js';

/** What the service holds for one track, as far as this workstation knows. */
export interface LedgerEntry {
  /** The entry's id in the catalog: the outer_id (json, audio_mapping) or the file name. */
  outer_id: string;
  mode: DeliveryMode;
  /** The audio as sent: path relative to the delivery's folder on disk, and its identity. */
  path?: string;
  /** Where the file was on disk (its fingerprint is reused only for that very file). */
  localPath?: string;
  size?: number;
  mtimeMs?: number;
  md5?: string;
  /** `primary_media` as sent (relative to delivery/audio/), or the object key's name. */
  primary_media?: string;
  /** json: the track body exactly as sent. */
  body?: Track;
  /** The delivery that sent it, and when the service accepted it. */
  delivery: string;
  at: string;
}

/** Rewrite the log once it holds this many more lines than live entries (and twice as many). */
const COMPACT_SLACK = 1_000;

/** The longest ledger file name kept as is (file systems cap a name at 255 bytes). */
const MAX_NAME = 200;

/**
 * The file of one catalog's ledger. Both names are URI-encoded (`/`, `\` and `%` escaped), so
 * none can name a path outside `ledger/`. A name too long for a file system (a profile named in
 * CJK encodes to 9 characters a letter) keeps its start and is told apart by its hash.
 */
export function ledgerFile(dataDir: string, profile: string, catalogId: string): string {
  const name = `${encodeURIComponent(profile)}~${encodeURIComponent(catalogId)}`;
  const short =
    name.length <= MAX_NAME
      ? name
      : `${name.slice(0, 150)}~${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
  return join(dataDir, 'ledger', `${short}.jsonl`);
}

/** One catalog's ledger, read into memory. */
export class CatalogLedger {
  readonly #byId = new Map<string, LedgerEntry>();
  #lines = 0;

  private constructor(
    readonly file: string,
    private readonly dataDir: string,
    /** Entries are held without their `body` (the log on disk keeps it): see `open`. */
    private readonly withoutBodies: boolean,
  ) {}

  /**
   * Reads the ledger of `profile` and `catalogId` (empty when none was written yet).
   * `withoutBodies` holds each entry without the track body it was sent with, for a run that
   * only records what is accepted: a 100,000-track catalog's bodies are a hundred megabytes.
   */
  static async open(
    dataDir: string,
    profile: string,
    catalogId: string,
    options: { withoutBodies?: boolean } = {},
  ): Promise<CatalogLedger> {
    const ledger = new CatalogLedger(
      ledgerFile(dataDir, profile, catalogId),
      dataDir,
      options.withoutBodies ?? false,
    );
    await ledger.#read();
    return ledger;
  }

  /** How many tracks the catalog holds from this workstation. */
  get size(): number {
    return this.#byId.size;
  }

  /** What was last accepted for `outerId`. */
  get(outerId: string): LedgerEntry | undefined {
    return this.#byId.get(outerId);
  }

  /** Every entry, in the order they were first accepted. */
  entries(): LedgerEntry[] {
    return [...this.#byId.values()];
  }

  /** Records what the service accepted: one append and one fsync, whatever the ledger's size. */
  async record(entries: readonly LedgerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
    await this.#locked(async () => {
      await this.#cutTornLine();
      const handle = await open(this.file, 'a');
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    for (const entry of entries) {
      this.#byId.delete(entry.outer_id); // a re-delivered track moves to the end
      this.#byId.set(entry.outer_id, this.#held(entry));
    }
    this.#lines += entries.length;
    if (this.#lines > 2 * this.#byId.size + COMPACT_SLACK) await this.compact();
  }

  /** Rewrites the log with one line per live entry (atomically). */
  async compact(): Promise<void> {
    await this.#locked(async () => {
      // Another process may have appended since; and entries held without their bodies are
      // written from the log's own lines, so a compaction never loses a body.
      const lines = await this.#read({ lines: true });
      await writeFileAtomic(this.file, [...lines.values()].join(''));
      this.#lines = this.#byId.size;
    });
  }

  /** What this ledger holds of an entry. */
  #held(entry: LedgerEntry): LedgerEntry {
    if (!this.withoutBodies || entry.body === undefined) return entry;
    const held = { ...entry };
    delete held.body;
    return held;
  }

  /** Reads the log into memory; resolves to each live entry's line (if asked), in order. */
  async #read(keep: { lines?: boolean } = {}): Promise<Map<string, string>> {
    this.#byId.clear();
    this.#lines = 0;
    const lines = new Map<string, string>();
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    for (const line of text.split('\n')) {
      if (!line) continue;
      let entry: LedgerEntry;
      try {
        entry = JSON.parse(line) as LedgerEntry;
      } catch {
        continue; // the torn last line of a crash
      }
      if (typeof entry?.outer_id !== 'string') continue;
      this.#byId.delete(entry.outer_id);
      this.#byId.set(entry.outer_id, this.#held(entry));
      if (keep.lines) {
        lines.delete(entry.outer_id);
        lines.set(entry.outer_id, `${line}\n`);
      }
      this.#lines++;
    }
    return lines;
  }

  /**
   * A crash mid-append leaves a line without its newline: cut it off before appending. Reads the
   * last byte only (and, after a crash, back to the previous newline).
   */
  async #cutTornLine(): Promise<void> {
    const handle = await open(this.file, 'r').catch(() => undefined);
    if (!handle) return;
    try {
      const { size } = await handle.stat();
      const byte = Buffer.alloc(1);
      if (size === 0) return;
      await handle.read(byte, 0, 1, size - 1);
      if (byte[0] === 0x0a) return;
      const chunk = Buffer.alloc(64 * 1024);
      for (let end = size; end > 0;) {
        const start = Math.max(0, end - chunk.length);
        await handle.read(chunk, 0, end - start, start);
        const at = chunk.subarray(0, end - start).lastIndexOf(0x0a);
        if (at >= 0) return void (await truncate(this.file, start + at + 1));
        end = start;
      }
      await truncate(this.file, 0);
    } finally {
      await handle.close();
    }
  }

  /** Writers of this process, one file at a time (the OS lock then keeps other processes out). */
  static readonly #queues = new Map<string, Promise<void>>();

  async #locked(work: () => Promise<void>): Promise<void> {
    const before = CatalogLedger.#queues.get(this.file) ?? Promise.resolve();
    const mine = before.then(() => this.#lockedAcrossProcesses(work));
    const settled = mine.catch(() => undefined);
    CatalogLedger.#queues.set(this.file, settled);
    try {
      await mine;
    } finally {
      if (CatalogLedger.#queues.get(this.file) === settled) CatalogLedger.#queues.delete(this.file);
    }
  }

  async #lockedAcrossProcesses(work: () => Promise<void>): Promise<void> {
    await mkdir(join(this.dataDir, 'ledger'), { recursive: true });
    const lock = await acquireProcessLock({
      dataDir: this.dataDir,
      name: `ledger:${this.file}`,
      what: 'recording deliveries',
      subject: 'The catalog ledger',
      wait: true,
    });
    try {
      await work();
    } finally {
      await lock.release();
    }
  }
}
