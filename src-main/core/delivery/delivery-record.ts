/**
 * The durable record of one delivery: what was planned, each file's and each batch's state and
 * the service's verbatim answers. It is written (atomically) before any network call and after
 * every state change that matters for exactly-once: a batch is `sent` on disk before its request
 * leaves and `accepted` after a 2xx.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { readJsonIfExists, writeFileAtomic } from '../files/atomic-file.js';
import { redactor, redactValue } from '../log.js';
import type { Track } from '../model/track.js';
import type { DeliveryMode, DeliveryState } from './delivery-summary.js';

export type { DeliveryMode, DeliveryState };

/** The interface's ingestion parameters, with its defaults filled in. */
export interface DeliveryOptions {
  ingestion_id: string;
  overwrite_audio_file: boolean;
  delete_delivered_file: boolean;
  media_fetch_type: 's3' | 'download';
}

/** One audio file of the delivery. */
export interface DeliveryFile {
  /** Path relative to the delivery's folder on disk, forward slashes. */
  path: string;
  localPath: string;
  key: string;
  size: number;
  /** As planned (absent in records older than fingerprints): the uploader sends only that file. */
  mtimeMs?: number;
  /** MD5 of the file's bytes at planning, hex. */
  md5?: string;
  state: 'pending' | 'confirmed' | 'failed';
  error?: string;
}

/** One ingestion request: a JSON batch of ≤ 25 tracks, or the one folder call. */
export interface DeliveryBatch {
  index: number;
  /** outer_ids the request carries (json); empty for folder calls (the service names them). */
  outerIds: string[];
  /** Keys of the audio this request needs in the bucket (empty for download). */
  keys: string[];
  state: 'pending' | 'sent' | 'accepted' | 'failed';
  attempts: number;
  /** false: a metadata-only request (the catalog keeps its audio); else the record's option. */
  overwriteAudio?: false;
  sentAt?: string;
  answeredAt?: string;
  /** The service's answer, verbatim (status and parsed body or text). */
  response?: { status: number; body: unknown };
  error?: string;
}

/** One retry of failed files: when, in which run, and which files (paths, as in `files`). */
export interface DeliveryRetry {
  at: string;
  run: number;
  files: string[];
}

/** The mapping of an audio_mapping delivery. */
export interface DeliveryMapping {
  separator: string;
  columns: string[];
  yaml: string;
  /** Stored as `delivery/mapping/<name>` and passed by name, or sent as mapping_content. */
  storage: 'file' | 'content';
  name?: string;
}

/** Everything Courier knows about one delivery. */
export interface DeliveryRecord {
  version: 1;
  id: string;
  /** Stable identity of "the same command" (profile, catalog, mode, folder on disk, --folder). */
  identity: string;
  state: DeliveryState;
  profile: string;
  environment: string;
  bucket: string;
  catalogId: string;
  mode: DeliveryMode;
  dir: string;
  folder: string;
  options: DeliveryOptions;
  mapping?: DeliveryMapping;
  files: DeliveryFile[];
  batches: DeliveryBatch[];
  /** JSON mode: the tracks exactly as they are sent, batch by batch (parallel to `batches`). */
  tracks?: Track[][];
  /** How the delivery differed from the catalog when planned (absent: everything was sent). */
  changes?: { new: number; audio: number; metadata: number; unchanged: number };
  /** Metadata-only tracks (by outer_id): the audio file the catalog already holds for each. */
  audioOf?: Record<
    string,
    { path: string; localPath: string; size: number; mtimeMs?: number; md5?: string }
  >;
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  runs: number;
  durations: { uploadMs: number; confirmMs: number; ingestMs: number };
  bytes: { total: number; sent: number };
  /** Every retry of failed files, oldest first (absent until the first one). */
  retries?: DeliveryRetry[];
  /** Every re-plan of a re-run whose files had changed on disk (paths), oldest first. */
  replans?: Array<{ at: string; files: string[] }>;
  /** Keys this delivery put in its folder that it no longer delivers: removed before sending. */
  discard?: string[];
  /** Which heavy part holds files and tracks (`<id>.parts-<n>.json`; absent: `<id>.parts.json`). */
  partsGeneration?: number;
  error?: string;
}

/** The stable identity of a delivery command, so that re-running it resumes the same record. */
export function deliveryIdentity(parts: {
  profile: string;
  catalogId: string;
  mode: DeliveryMode;
  dir: string;
  folder?: string;
}): string {
  return createHash('sha256')
    .update(
      JSON.stringify([parts.profile, parts.catalogId, parts.mode, parts.dir, parts.folder ?? '']),
    )
    .digest('hex')
    .slice(0, 24);
}

/** A new delivery id: sortable by time, unique. */
export function newDeliveryId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** Whether a record still has work to do. */
export function isUnfinished(record: DeliveryRecord): boolean {
  return record.state !== 'accepted';
}

/**
 * The keys a retry can name: files that failed to upload or confirm, and the files of requests
 * the service refused or whose answer was lost (they are re-checked and the request re-sent).
 */
export function retryableKeys(record: DeliveryRecord): Set<string> {
  const keys = new Set(record.files.filter((f) => f.state === 'failed').map((f) => f.key));
  for (const batch of record.batches) {
    if (batch.state === 'failed' || batch.state === 'sent') for (const k of batch.keys) keys.add(k);
  }
  return keys;
}

/**
 * A safety net: errors and answers are redacted where they are made (ApiError, the service
 * client), and again here, in place, so no token or secret reaches the disk, `courier history`
 * or the app, even from a path that forgot.
 */
function redactServerText(record: DeliveryRecord, done: WeakSet<object>): void {
  if (record.error !== undefined) record.error = redactor.redact(record.error);
  for (const batch of record.batches) {
    if (batch.error !== undefined) batch.error = redactor.redact(batch.error);
    if (batch.response && !done.has(batch.response)) {
      batch.response = redactValue(batch.response);
      done.add(batch.response);
    }
  }
  for (const file of record.files) {
    if (file.error !== undefined) file.error = redactor.redact(file.error);
  }
}

/**
 * The store of delivery records under `<dataDir>/deliveries/`. A record is two files: the heavy,
 * rarely changing part (files and track bodies, compact JSON) in `<id>.parts.json`, written
 * first, and the rest (state, batches, responses) in `<id>.json`, rewritten at every batch
 * transition: a 10,000-track delivery does not rewrite megabytes of tracks per batch.
 */
export class DeliveryStore {
  readonly dir: string;
  /** The parts file this store last wrote for each record. */
  readonly #partsWritten = new Map<string, string>();
  /** Answers already redacted: each is walked once, not at every save of its record. */
  readonly #redacted = new WeakSet<object>();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'deliveries');
  }

  /** The main file of one record. */
  fileOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /**
   * The heavy part of one record (files, track bodies). A re-plan writes a new generation beside
   * the old one and then points the record at it, so a crash between the two writes leaves the
   * record with the batches and tracks that belong together.
   */
  partsOf(id: string, generation?: number): string {
    return join(this.dir, generation ? `${id}.parts-${generation}.json` : `${id}.parts.json`);
  }

  /**
   * Writes a record atomically (temp + fsync + rename), stamping `updatedAt`. The files and
   * tracks are rewritten when `full` is set (their states changed) or on this store's first save.
   */
  async save(record: DeliveryRecord, options: { full?: boolean } = {}): Promise<void> {
    record.updatedAt = new Date().toISOString();
    redactServerText(record, this.#redacted);
    const { files, tracks, ...light } = record;
    const parts = this.partsOf(record.id, record.partsGeneration);
    const written = this.#partsWritten.get(record.id);
    if (options.full || written !== parts) {
      await writeFileAtomic(parts, JSON.stringify({ files, tracks }));
      this.#partsWritten.set(record.id, parts);
    }
    await writeFileAtomic(this.fileOf(record.id), `${JSON.stringify(light, null, 2)}\n`);
    if (record.partsGeneration && written !== parts) {
      // The generation before this one is no longer pointed at.
      await rm(this.partsOf(record.id, record.partsGeneration - 1), { force: true });
    }
  }

  /** Reads one record, or undefined. */
  async load(id: string): Promise<DeliveryRecord | undefined> {
    const stored = await readJsonIfExists<Omit<DeliveryRecord, 'files' | 'tracks'>>(
      this.fileOf(id),
    );
    if (stored?.version !== 1) return undefined;
    // Records written before redaction existed may hold a bearer token: never show it again.
    const light = redactValue(stored);
    const parts = await readJsonIfExists<Pick<DeliveryRecord, 'files' | 'tracks'>>(
      this.partsOf(id, stored.partsGeneration),
    );
    return {
      ...light,
      files: parts?.files ?? [],
      ...(parts?.tracks ? { tracks: parts.tracks } : {}),
    };
  }

  /** Every record, oldest first. */
  async list(): Promise<DeliveryRecord[]> {
    const records: DeliveryRecord[] = [];
    for await (const record of this.records()) records.push(record);
    return records;
  }

  /** The id of every record, oldest first (ids sort by time). */
  async ids(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names
      .filter(
        (name) =>
          name.endsWith('.json') && !/\.parts(-\d+)?\.json$/.test(name) && !name.startsWith('.'),
      )
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  }

  /**
   * Every record, one at a time (oldest first, or newest first): a search over a long history
   * holds one record's tracks in memory, not every record's. An unreadable record is skipped.
   */
  async *records(options: { newestFirst?: boolean } = {}): AsyncGenerator<DeliveryRecord> {
    const ids = await this.ids();
    if (options.newestFirst) ids.reverse();
    for (const id of ids) {
      const record = await this.load(id).catch(() => undefined);
      if (record) yield record;
    }
  }

  /** The newest unfinished record of this identity, to resume instead of starting over. */
  async findUnfinished(identity: string): Promise<DeliveryRecord | undefined> {
    const records = await this.list();
    return records.reverse().find((r) => r.identity === identity && isUnfinished(r));
  }
}
