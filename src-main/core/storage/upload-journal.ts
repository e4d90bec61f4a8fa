import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { writeFileAtomic } from '../files/atomic-file.js';

/** One part S3 acknowledged, as recorded before it counts as done. */
export interface JournalPart {
  partNumber: number;
  etag: string;
  /** Base64 MD5 sent as Content-MD5 and verified by the server. */
  md5: string;
  size: number;
}

/** The durable state of one file's upload. */
export interface JournalEntry {
  version: 1;
  bucket: string;
  key: string;
  localPath: string;
  size: number;
  mtimeMs: number;
  /** 'uploading' while a multipart upload is open; 'complete' once the object is confirmed. */
  state: 'uploading' | 'complete';
  uploadId?: string;
  partSize?: number;
  parts: JournalPart[];
  /** The ETag of the confirmed object (state 'complete'). */
  etag?: string;
  updatedAt: string;
}

/** The folder under the data directory that holds journals. */
export function journalDir(dataDir: string): string {
  return join(dataDir, 'journal');
}

/** Journal file name for a key: a hash, so any key maps to one short, safe file name. */
export function journalFile(dataDir: string, bucket: string, key: string): string {
  const id = createHash('sha256').update(`${bucket}\n${key}`).digest('hex').slice(0, 40);
  return join(journalDir(dataDir), `${id}.json`);
}

/** Reads a journal, or undefined when there is none or it is unreadable (treated as absent). */
export async function readJournal(
  dataDir: string,
  bucket: string,
  key: string,
): Promise<JournalEntry | undefined> {
  try {
    const entry = JSON.parse(
      await readFile(journalFile(dataDir, bucket, key), 'utf8'),
    ) as JournalEntry;
    if (
      entry.version !== 1 ||
      entry.bucket !== bucket ||
      entry.key !== key ||
      !Array.isArray(entry.parts)
    ) {
      return undefined;
    }
    return entry;
  } catch {
    return undefined;
  }
}

/** Deletes a file's journal. */
export async function removeJournal(dataDir: string, bucket: string, key: string): Promise<void> {
  await rm(journalFile(dataDir, bucket, key), { force: true });
}

/** Lists every journal under the data directory (used to find unfinished uploads). */
export async function listJournals(dataDir: string): Promise<JournalEntry[]> {
  let names: string[];
  try {
    names = await readdir(journalDir(dataDir));
  } catch {
    return [];
  }
  const entries: JournalEntry[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      entries.push(
        JSON.parse(await readFile(join(journalDir(dataDir), name), 'utf8')) as JournalEntry,
      );
    } catch {
      /* A torn temp file can't be here (rename is atomic); anything else unreadable is skipped. */
    }
  }
  return entries;
}

/**
 * Serialises writes of one file's journal: many parts finish at once, so a commit that arrives
 * while a write is in progress waits for the next write, which carries every change so far.
 * A part counts as done only after the write that contains it has been renamed into place.
 */
export class JournalWriter {
  private writing: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    readonly entry: JournalEntry,
  ) {}

  /** Persists the entry as it is now; resolves once a write containing this state is durable. */
  commit(): Promise<void> {
    if (!this.writing) {
      this.writing = this.write().finally(() => (this.writing = undefined));
      return this.writing;
    }
    this.next ??= this.writing
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.commit();
      });
    return this.next;
  }

  private async write(): Promise<void> {
    // writeFileAtomic makes the journal folder when it is missing.
    const path = journalFile(this.dataDir, this.entry.bucket, this.entry.key);
    this.entry.updatedAt = new Date().toISOString();
    // A part counts once its entry is on disk. A finished file's entry only spares a later run
    // reading the file again to compare it with the bucket, so it isn't flushed: a power cut
    // that loses it costs that check, never a byte.
    await writeFileAtomic(path, JSON.stringify(this.entry), {
      durable: this.entry.state !== 'complete',
    });
  }
}
