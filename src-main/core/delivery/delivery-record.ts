/**
 * The durable record of one delivery: what was planned, each file's and each batch's state and
 * the service's verbatim answers. It is written (atomically) before any network call, and every
 * state change that matters for exactly-once is on disk before the next step: a batch is `sent`
 * on disk before its request leaves and `accepted` after a 2xx.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { readJsonIfExists, writeStreamAtomic } from '../files/atomic-file.js';
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
  /**
   * The service's answer, verbatim (status and parsed body or text). Kept on disk in the record's
   * answers file, and read only when asked for (`load`, `loadHeader` with `answers`): the store
   * lets a record in memory drop each answer once it is on disk, as a run never reads it again.
   */
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
  /**
   * Which batch journal continues this file (`<id>.journal-<n>.jsonl`); absent in records written
   * before journals, which hold every batch state in the main file.
   */
  journal?: number;
  /** How many files and tracks the heavy part holds, so History need not read it. */
  counts?: { files: number; tracks: number };
  error?: string;
}

/** A record without its heavy part (files, track bodies): what History and the CLI list. */
export type DeliveryHeader = Omit<DeliveryRecord, 'files' | 'tracks'> &
  Partial<Pick<DeliveryRecord, 'files' | 'tracks'>>;

/** How many files and tracks a record (or a header, from its stamped counts) holds. */
export function countsOf(record: DeliveryHeader): { files: number; tracks: number } {
  if (!record.files) return record.counts ?? { files: 0, tracks: 0 };
  return {
    files: record.files.length,
    tracks: record.tracks?.reduce((n, b) => n + b.length, 0) ?? record.files.length,
  };
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
export function isUnfinished(record: DeliveryHeader): boolean {
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
  for (const batch of record.batches) redactBatch(batch, done);
  for (const file of record.files) {
    if (file.error !== undefined) file.error = redactor.redact(file.error);
  }
}

function redactBatch(batch: DeliveryBatch, done: WeakSet<object>): void {
  if (batch.error !== undefined) batch.error = redactor.redact(batch.error);
  if (batch.response && !done.has(batch.response)) {
    batch.response = redactValue(batch.response);
    done.add(batch.response);
  }
}

/**
 * `JSON.stringify(value)` (a record's part), a few hundred kilobytes at a time, the arrays among
 * its fields an item at a time: as one string, the parts of a 100,000-track delivery took 70 MB
 * beside the objects they were made from, and its main file, 4,000 answers, some 40 MB more at
 * each phase of the run.
 */
async function* recordJson(value: object): AsyncGenerator<Buffer> {
  const CHUNK = 256 * 1024;
  let text = '{';
  let first = true;
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!Array.isArray(field)) {
      text += JSON.stringify(field);
      continue;
    }
    text += '[';
    for (let i = 0; i < field.length; i++) {
      text += `${i > 0 ? ',' : ''}${JSON.stringify(field[i]) ?? 'null'}`;
      if (text.length >= CHUNK) {
        yield Buffer.from(text);
        text = '';
      }
    }
    text += ']';
  }
  yield Buffer.from(`${text}}\n`);
}

/** Which attempt of a batch an answer answers: when it was sent (a re-plan renumbers batches). */
const attemptOf = (batch: DeliveryBatch) => batch.sentAt ?? `batch ${batch.index}`;

/** What a journal line holds: one batch's whole changing state (the plan part never changes). */
type BatchState = Omit<DeliveryBatch, 'index' | 'outerIds' | 'keys'>;

/**
 * The store of delivery records under `<dataDir>/deliveries/`. A record is up to three files:
 *
 * - `<id>.parts.json` (or `.parts-<n>.json`): the heavy, rarely changing part (files and track
 *   bodies, compact JSON), written first and only when it changes;
 * - `<id>.json`: the rest (state, counts, batches), rewritten atomically at the moments a run
 *   starts, changes phase and ends — never per batch;
 * - `<id>.journal-<n>.jsonl`: each batch transition since that file was written, one line
 *   appended and fsynced per transition. Its cost is one batch's state whatever the delivery's
 *   size, so a 100,000-track delivery persists each batch as cheaply as a 100-track one;
 * - `<id>.answers.jsonl`: the service's answer to each request, appended and fsynced before the
 *   batch's state, keyed by the attempt it answers (`sentAt`, which a re-plan keeps), never
 *   rewritten. At 100,000 tracks the 4,000 answers are some 40 MB: out of the main file, History
 *   lists deliveries without reading them and a run does not hold them.
 *
 * Loading folds the journal named by the main file into its batches; writing the main file
 * ("compacting") names a new, empty journal and removes the old one, so a crash between the two
 * leaves a journal nothing names (ignored). A crash during an append can only cut the last line
 * short: it is ignored, and the next run compacts before it appends. Records written before
 * journals (batches in the main file, no `journal`) load as they are; answers written before the
 * answers file (in the main file or a journal) are moved into it by the next save.
 */
export class DeliveryStore {
  readonly dir: string;
  /** The parts file this store last wrote for each record. */
  readonly #partsWritten = new Map<string, string>();
  /** The journal generation this store last compacted each record to: appends go there. */
  readonly #compacted = new Map<string, number>();
  /** Answers already redacted: each is walked once, not at every save of its record. */
  readonly #redacted = new WeakSet<object>();
  /** Answers already in their record's answers file (appended, or read from it). */
  readonly #answered = new WeakSet<object>();

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

  /** The service's answers to one record's requests. */
  answersOf(id: string): string {
    return join(this.dir, `${id}.answers.jsonl`);
  }

  /** The batch journal of one record's generation `generation`. */
  journalOf(id: string, generation: number): string {
    return join(this.dir, `${id}.journal-${generation}.jsonl`);
  }

  /**
   * Writes a record atomically (temp + fsync + rename), stamping `updatedAt`, and starts a new
   * journal for it. The files and tracks are rewritten when `full` is set (their states changed)
   * or on this store's first save. Costs the size of the batches: call it when a run starts,
   * changes phase or ends; a batch transition is `saveBatch`.
   */
  async save(record: DeliveryRecord, options: { full?: boolean } = {}): Promise<void> {
    record.updatedAt = new Date().toISOString();
    redactServerText(record, this.#redacted);
    record.counts = countsOf(record);
    await this.#keepAnswers(record.id, record.batches);
    const previous = record.journal;
    record.journal = (previous ?? 0) + 1;
    const { files, tracks, ...light } = record;
    const parts = this.partsOf(record.id, record.partsGeneration);
    const written = this.#partsWritten.get(record.id);
    if (options.full || written !== parts) {
      await writeStreamAtomic(parts, recordJson({ files, tracks }));
      this.#partsWritten.set(record.id, parts);
    }
    try {
      await writeStreamAtomic(this.fileOf(record.id), recordJson(light));
    } catch (error) {
      record.journal = previous;
      throw error;
    }
    this.#compacted.set(record.id, record.journal);
    if (previous !== undefined) await rm(this.journalOf(record.id, previous), { force: true });
    if (record.partsGeneration && written !== parts) {
      // The generation before this one is no longer pointed at.
      await rm(this.partsOf(record.id, record.partsGeneration - 1), { force: true });
    }
  }

  /**
   * Records one batch's new state durably: one line appended to the record's journal and
   * fsynced, whatever the size of the delivery. `sent` is on disk before the request leaves.
   */
  async saveBatch(record: DeliveryRecord, batch: DeliveryBatch): Promise<void> {
    if (record.journal === undefined || this.#compacted.get(record.id) !== record.journal) {
      // Not written by this store yet (or by another one): start a journal of its own first.
      await this.save(record);
    }
    redactBatch(batch, this.#redacted);
    await this.#keepAnswers(record.id, [batch]);
    const state: Partial<DeliveryBatch> = { ...batch };
    delete state.index;
    delete state.outerIds;
    delete state.keys;
    const line = `${JSON.stringify({ i: batch.index, s: state as BatchState })}\n`;
    const handle = await open(this.journalOf(record.id, record.journal!), 'a', 0o600);
    try {
      await handle.writeFile(line);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /**
   * Appends the answers among `batches` that are not on disk yet to the record's answers file
   * (one write, fsynced), then drops every answer from the batches in memory.
   */
  async #keepAnswers(id: string, batches: readonly DeliveryBatch[]): Promise<void> {
    const held = batches.filter((b) => b.response !== undefined);
    if (held.length === 0) return;
    const lines = held
      .filter((b) => !this.#answered.has(b.response!))
      .map((b) => `${JSON.stringify({ at: attemptOf(b), r: b.response })}\n`);
    if (lines.length > 0) {
      // The record's first save may come before its folder exists.
      const handle = await open(this.answersOf(id), 'a', 0o600).catch(async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(this.dir, { recursive: true });
        return open(this.answersOf(id), 'a', 0o600);
      });
      try {
        // A crash mid-append leaves a line cut short: the newline first ends it, and it is skipped.
        await handle.writeFile(`\n${lines.join('')}`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    for (const batch of held) delete batch.response;
  }

  /** Gives each batch the answer to its last attempt from the answers file, when there is one. */
  async #readAnswers(light: Omit<DeliveryRecord, 'files' | 'tracks'>): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.answersOf(light.id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const byAttempt = new Map<string, DeliveryBatch['response']>();
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as { at: string; r: DeliveryBatch['response'] };
        byAttempt.set(entry.at, entry.r);
      } catch {
        continue; // cut short by a crash mid-append
      }
    }
    for (const batch of light.batches) {
      const response = byAttempt.get(attemptOf(batch));
      if (!response) continue;
      batch.response = response;
      this.#answered.add(response);
      this.#redacted.add(response);
    }
  }

  /**
   * Reads one record, or undefined; `answers: false` leaves the answers file unread (a run never
   * reads an answer again).
   */
  async load(id: string, options: { answers?: boolean } = {}): Promise<DeliveryRecord | undefined> {
    const light = await this.#loadMain(id, options.answers ?? true);
    if (!light) return undefined;
    const parts = await readJsonIfExists<Pick<DeliveryRecord, 'files' | 'tracks'>>(
      this.partsOf(id, light.partsGeneration),
    );
    return {
      ...light,
      files: parts?.files ?? [],
      ...(parts?.tracks ? { tracks: parts.tracks } : {}),
    };
  }

  /**
   * Reads one record without its heavy part (files and track bodies are not read), nor its
   * answers unless asked: History's summary. A record written before counts were stamped is
   * read whole once to count them.
   */
  async loadHeader(
    id: string,
    options: { answers?: boolean } = {},
  ): Promise<DeliveryHeader | undefined> {
    const light = await this.#loadMain(id, options.answers ?? false);
    if (!light || light.counts) return light;
    const whole = await this.load(id, options);
    if (!whole) return undefined;
    const header: DeliveryHeader = { ...whole, counts: countsOf(whole) };
    delete header.files;
    delete header.tracks;
    return header;
  }

  /** The main file with its journal folded in, and the answers file if asked. */
  async #loadMain(
    id: string,
    answers: boolean,
  ): Promise<Omit<DeliveryRecord, 'files' | 'tracks'> | undefined> {
    const stored = await readJsonIfExists<Omit<DeliveryRecord, 'files' | 'tracks'>>(
      this.fileOf(id),
    );
    if (stored?.version !== 1) return undefined;
    if (stored.journal === undefined) {
      // Written before journals, maybe before redaction existed: it may hold a bearer token,
      // never shown again. A record with a journal was redacted as it was written (`save` and
      // `saveBatch` redact first), and walking every answer of 4,000 requests at each load
      // would make History wait seconds.
      const redacted = redactValue(stored);
      if (answers) await this.#readAnswers(redacted);
      return redacted;
    }
    await this.#replay(stored, stored.journal);
    if (answers) await this.#readAnswers(stored);
    return stored;
  }

  /** Applies each line of the record's journal, in order; a torn last line is ignored. */
  async #replay(light: Omit<DeliveryRecord, 'files' | 'tracks'>, generation: number) {
    let text: string;
    try {
      text = await readFile(this.journalOf(light.id, generation), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      let entry: { i: number; s: BatchState };
      try {
        entry = JSON.parse(line) as { i: number; s: BatchState };
      } catch {
        continue; // cut short by a crash mid-append: the transition never happened
      }
      const batch = light.batches[entry.i];
      if (!batch) continue;
      light.batches[entry.i] = {
        index: batch.index,
        outerIds: batch.outerIds,
        keys: batch.keys,
        ...entry.s,
      };
    }
  }

  /** Every record, oldest first. */
  async list(): Promise<DeliveryRecord[]> {
    const records: DeliveryRecord[] = [];
    for await (const record of this.records()) records.push(record);
    return records;
  }

  /** Every record without its heavy part, oldest first: what History lists. */
  async headers(): Promise<DeliveryHeader[]> {
    const headers: DeliveryHeader[] = [];
    for (const id of await this.ids()) {
      const header = await this.loadHeader(id).catch(() => undefined);
      if (header) headers.push(header);
    }
    return headers;
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
   * Every record without its answers, one at a time (oldest first, or newest first): a search
   * over a long history holds one record's tracks in memory, not every record's. An unreadable
   * record is skipped.
   */
  async *records(options: { newestFirst?: boolean } = {}): AsyncGenerator<DeliveryRecord> {
    const ids = await this.ids();
    if (options.newestFirst) ids.reverse();
    for (const id of ids) {
      const record = await this.load(id, { answers: false }).catch(() => undefined);
      if (record) yield record;
    }
  }

  /**
   * The newest unfinished record of this identity, to resume instead of starting over: its
   * header (the run that resumes it loads it whole once, under its lock).
   */
  async findUnfinished(identity: string): Promise<DeliveryHeader | undefined> {
    const headers = await this.headers();
    return headers.reverse().find((r) => r.identity === identity && isUnfinished(r));
  }
}
