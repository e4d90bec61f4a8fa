import { type FileHandle, open, readFile, rename, rm, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';

/** When a log is rewritten: it holds more than `ratio` × live records and at least `minRecords`. */
export interface CompactionPolicy {
  ratio: number;
  minRecords: number;
}

/** The default policy: a rewrite costs one pass over the live records, at most every n appends. */
export const DEFAULT_COMPACTION: CompactionPolicy = { ratio: 2, minRecords: 10_000 };

/** Records per line when a put or a compaction writes many (keeps each line a modest string). */
const RECORDS_PER_LINE = 1000;

/** The suffix of a compaction's temp file; one left by a crash is deleted at open. */
export const COMPACTION_SUFFIX = '.compacting';

/** A log line that is neither JSON nor the torn tail of the file. */
export class EntryLogCorrupt extends Error {
  constructor(file: string, line: number) {
    super(
      `The sandbox's entry log ${file} is damaged at line ${line}; move the file away to start that catalog empty.`,
    );
    this.name = 'EntryLogCorrupt';
  }
}

interface Pending {
  text: string;
  records: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One catalog's append-only log of records (JSON lines, each an array of records written by one
 * call). Appends are written and fsync'd before they resolve; appends that arrive while a write
 * is in progress go out together in the next one. A torn last line (the process killed during a
 * write) is cut off at open. When the log holds far more records than live ones, it is rewritten
 * from `live()` into a temp file that replaces it by rename, so a crash leaves the old or the new
 * log, both complete.
 */
export class EntryLog<T> {
  private pending: Pending[] = [];
  private draining: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly file: string,
    private handle: FileHandle,
    /** Records in the file (live and overwritten). */
    private records: number,
    private readonly live: () => { count: number; values: Iterable<T> },
    private readonly policy: CompactionPolicy,
  ) {}

  /**
   * Opens (creating) the log at `file`, calling `apply` with every record in order; a torn tail
   * is truncated, a damaged line before the tail throws `EntryLogCorrupt`.
   */
  static async open<T>(
    file: string,
    apply: (record: T) => void,
    live: () => { count: number; values: Iterable<T> },
    policy: CompactionPolicy = DEFAULT_COMPACTION,
  ): Promise<EntryLog<T>> {
    await rm(file + COMPACTION_SUFFIX, { force: true });
    const content = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    });
    let records = 0;
    let start = 0;
    let line = 0;
    // Where the bad lines began; only a bad tail (nothing good after it) is a torn write.
    let badAt: { offset: number; line: number } | undefined;
    while (start < content.length) {
      const end = content.indexOf(10, start);
      line += 1;
      const parsed = end < 0 ? undefined : parseLine<T>(content.toString('utf8', start, end));
      if (parsed === undefined) {
        badAt ??= { offset: start, line };
        if (end < 0) break;
      } else {
        if (badAt) throw new EntryLogCorrupt(file, badAt.line);
        for (const record of parsed) apply(record);
        records += parsed.length;
      }
      start = end + 1;
    }
    if (badAt) {
      await truncate(file, badAt.offset);
      process.stderr.write(
        `sandbox: cut the incomplete last write (${content.length - badAt.offset} bytes) off ${file}\n`,
      );
    }
    const handle = await open(file, 'a');
    if (badAt) await handle.sync();
    return new EntryLog(file, handle, records, live, policy);
  }

  /** Appends records (one write with whatever else is waiting) and resolves once on disk. */
  append(records: T[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error(`The entry log ${this.file} is closed.`));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ text: logLines(records), records: records.length, resolve, reject });
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
    });
  }

  /** Records in the file, live and overwritten. */
  get size(): number {
    return this.records;
  }

  /** Waits for every pending append and closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.draining) await this.draining;
    await this.handle.close();
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        await writeAll(this.handle, batch.map((p) => p.text).join(''));
        await this.handle.datasync();
        for (const p of batch) this.records += p.records;
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
        continue;
      }
      const { count } = this.live();
      if (this.records > this.policy.ratio * count && this.records >= this.policy.minRecords) {
        await this.compact().catch((error: unknown) => {
          process.stderr.write(`sandbox: compacting ${this.file} failed: ${String(error)}\n`);
        });
      }
    }
  }

  /** Rewrites the log with the live records only (appends wait; none is lost). */
  private async compact(): Promise<void> {
    const { count, values } = this.live();
    // Taken now: records put after this point are pending and go to the new file after it.
    const snapshot = [...values];
    const temp = this.file + COMPACTION_SUFFIX;
    const out = await open(temp, 'w');
    try {
      for (let i = 0; i < snapshot.length; i += RECORDS_PER_LINE)
        await writeAll(out, logLines(snapshot.slice(i, i + RECORDS_PER_LINE)));
      await out.sync();
    } finally {
      await out.close();
    }
    await rename(temp, this.file);
    await syncDir(dirname(this.file));
    await this.handle.close();
    this.handle = await open(this.file, 'a');
    this.records = count;
  }
}

function parseLine<T>(text: string): T[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Records as log lines: one JSON array per line, at most RECORDS_PER_LINE records each. */
export function logLines<T>(records: T[]): string {
  let text = '';
  for (let i = 0; i < records.length; i += RECORDS_PER_LINE)
    text += `${JSON.stringify(records.slice(i, i + RECORDS_PER_LINE))}\n`;
  return text;
}

async function writeAll(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}

/** Makes a rename in `dir` durable (no-op where directories can't be opened, as on Windows). */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // Some systems refuse fsync on a directory; the rename is still atomic.
  } finally {
    await handle.close();
  }
}
