/**
 * Running a delivery: upload → confirm every object with HeadObject → ingest, recording each
 * step durably so that a re-run (after a crash, a kill or a failure) continues from the first
 * unfinished file or batch and never sends an accepted batch again.
 *
 * Exactly-once, as far as the interface allows: a batch is saved as `sent` before its request
 * leaves and `accepted` after a 2xx. A batch found `sent` or `failed` on resume is sent again.
 * That is safe because the service keys entries by outer_id and overwrites an existing entry
 * with the same outer_id (service-interface §3, 4.3–4.5): a second request for the same tracks
 * leaves the same entries. Before any batch is (re)sent its audio must be confirmed in
 * `delivery/audio/`; with delete_delivered_file the service moves the audio away when it takes
 * a request, so a request that was processed but whose answer was lost leaves its keys empty.
 * The upload step runs again for every unfinished batch's files, the uploader re-uploads what is
 * missing, and the batch is re-sent with its audio in place (see docs/deliveries.md).
 */
import {
  DeleteObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

import { ApiError } from '../api/api-error.js';
import type { IngestionResponse, ServiceClient } from '../api/service-client.js';
import type { CatalogLedger, LedgerEntry } from '../ledger/catalog-ledger.js';
import { AUDIO_ROOT } from '../storage/object-key.js';
import { createS3Client, type S3Target } from '../storage/s3-client.js';
import type { UploadEvent, UploadOptions } from '../storage/upload-context.js';
import { UploadQueue } from '../storage/upload-queue.js';
import { recordNamer } from './delivered-tracks.js';
import {
  type DeliveryBatch,
  type DeliveryFile,
  type DeliveryRecord,
  type DeliveryStore,
  retryableKeys,
} from './delivery-record.js';
import type { PauseGate } from './pause-gate.js';

/** What a running delivery tells its listeners (the CLI's lines, the app's view). */
export type DeliveryEvent =
  | { type: 'phase'; phase: 'upload' | 'confirm' | 'ingest'; files?: number; batches?: number }
  | { type: 'upload'; event: UploadEvent }
  | {
      type: 'batch';
      index: number;
      state: DeliveryBatch['state'];
      tracks: number;
      message?: string;
    }
  | { type: 'finished'; state: DeliveryRecord['state'] };

/** What a run needs besides the record. */
export interface RunDeliveryArgs {
  record: DeliveryRecord;
  store: DeliveryStore;
  api: ServiceClient;
  bucket: S3Target;
  dataDir: string;
  onEvent?: (event: DeliveryEvent) => void;
  signal?: AbortSignal;
  uploadOptions?: UploadOptions;
  /** Called with the upload step's queue, so a door can pause, resume or `stop()` it. */
  onUploadQueue?: (queue: UploadQueue) => void;
  /** An existing S3 client (tests); otherwise one is made for the bucket. */
  s3?: S3Client;
  /** The failed files this run tries again (default: every one); see `runDelivery`. */
  retryKeys?: readonly string[];
  /** Paused, the run stops before its next ingestion request (the upload has its own pause). */
  pause?: PauseGate;
  /** The catalog's ledger: each accepted request's tracks are recorded in it. */
  ledger?: CatalogLedger;
}

const HEAD_CONCURRENCY = 16;

/** Runs `work` over items with at most `limit` in flight. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs (or resumes) a delivery and resolves to the final record: `accepted` when every batch was
 * accepted, `failed` otherwise (the record says which file or batch and why).
 *
 * A file that cannot be uploaded or confirmed holds back only the requests that need it: in json
 * mode the other batches are ingested, so a retry sends just the waiting ones (a folder call
 * needs every file, so it waits for all). `retryKeys` chooses which failed files this run tries
 * again (default: all of them); the others, and the requests that need them, are left as they
 * are. Each run that retries failed files or requests appends to `record.retries`.
 */
export async function runDelivery(args: RunDeliveryArgs): Promise<DeliveryRecord> {
  const { record, store, signal } = args;
  const emit = (event: DeliveryEvent) => args.onEvent?.(event);
  const s3 = args.s3 ?? createS3Client(args.bucket);
  const fail = async (message: string) => {
    record.state = 'failed';
    record.error = message;
    await store.save(record, { full: true });
    emit({ type: 'finished', state: 'failed' });
    return record;
  };
  try {
    // A kill between an accepted request's journal line and its ledger append left the
    // catalog's ledger short of what the service holds: make it whole before anything else.
    if (args.ledger) await recordMissedAcceptances(record, args.ledger);
    record.runs++;
    delete record.error;
    const retryable = retryableKeys(record);
    const chosen = new Set(args.retryKeys ?? retryable);
    const retried = record.files.filter((f) => chosen.has(f.key) && retryable.has(f.key));
    if (retried.length > 0) {
      record.retries = [
        ...(record.retries ?? []),
        { at: new Date().toISOString(), run: record.runs, files: retried.map((f) => f.path) },
      ];
    }
    const leftFailed = new Set(
      record.files.filter((f) => f.state === 'failed' && !chosen.has(f.key)).map((f) => f.key),
    );
    // The requests of this run: unfinished ones whose files are not failed-and-left-alone.
    const scope = record.batches.filter(
      (b) => b.state !== 'accepted' && !b.keys.some((k) => leftFailed.has(k)),
    );
    const needed = new Set(scope.flatMap((b) => b.keys));
    const files = record.files.filter((f) => needed.has(f.key));
    /** Keys confirmed in the bucket by this run: only their requests may be sent. */
    const confirmed = new Set<string>();

    // 0. Objects a re-plan dropped go first: a folder call would deliver anything left there.
    if (record.discard?.length) {
      const own = `${AUDIO_ROOT}${record.folder}/`;
      await eachLimited(
        record.discard.filter((key) => key.startsWith(own)),
        HEAD_CONCURRENCY,
        async (key) => {
          await s3.send(new DeleteObjectCommand({ Bucket: args.bucket.bucket, Key: key }), {
            abortSignal: signal,
          });
        },
      );
      delete record.discard;
    }

    // 1. Upload what those requests need (the uploader skips what is already in place).
    record.state = 'uploading';
    await store.save(record);
    if (files.length > 0) {
      emit({ type: 'phase', phase: 'upload', files: files.length });
      const started = Date.now();
      const queue = new UploadQueue({
        target: args.bucket,
        dataDir: args.dataDir,
        items: files.map((f) => ({
          localPath: f.localPath,
          key: f.key,
          ...(f.md5 !== undefined && f.mtimeMs !== undefined
            ? { planned: { size: f.size, mtimeMs: f.mtimeMs, md5: f.md5 } }
            : {}),
        })),
        options: args.uploadOptions,
      });
      queue.on((event) => emit({ type: 'upload', event }));
      args.onUploadQueue?.(queue);
      // An interruption stops the queue and keeps its journals, so running again resumes from
      // the parts already in the bucket (cancel() would abort them and start over).
      const onAbort = () => queue.stop();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) queue.stop();
      const report = await queue
        .start()
        .finally(() => signal?.removeEventListener('abort', onAbort));
      record.durations.uploadMs += Date.now() - started;
      record.bytes.sent += report.bytesSent;
      const byKey = new Map(files.map((f) => [f.key, f]));
      const uploadFailed = new Set<string>();
      for (const outcome of report.files) {
        const file = byKey.get(outcome.key);
        if (!file) continue;
        if (outcome.status === 'failed' || outcome.status === 'canceled') {
          file.state = 'failed';
          file.error = outcome.message;
          uploadFailed.add(file.key);
        } else delete file.error;
      }
      if (report.canceled)
        return await fail('interrupted during the upload; run it again to resume');

      // 2. Every object is confirmed with HeadObject (size checked) before any request that
      // needs it. The uploader ends each file it uploads or skips with exactly that HeadObject,
      // so those are confirmed by its outcome; a second pass cost a quarter of a 10,000-track
      // delivery. Any other file the uploader did not fail is checked here.
      for (const f of report.files) {
        if (f.status === 'uploaded' || f.status === 'skipped') confirmed.add(f.key);
      }
      for (const file of files) if (confirmed.has(file.key)) file.state = 'confirmed';
      const toCheck = files.filter((f) => !confirmed.has(f.key) && !uploadFailed.has(f.key));
      emit({ type: 'phase', phase: 'confirm', files: toCheck.length });
      const confirmStarted = Date.now();
      await eachLimited(toCheck, HEAD_CONCURRENCY, async (file) => {
        try {
          const head = await s3.send(
            new HeadObjectCommand({ Bucket: args.bucket.bucket, Key: file.key }),
            { abortSignal: signal },
          );
          if (head.ContentLength !== file.size) {
            throw new Error(
              `${head.ContentLength ?? 'no'} bytes in the bucket, ${file.size} on disk`,
            );
          }
          file.state = 'confirmed';
          delete file.error;
          confirmed.add(file.key);
        } catch (error) {
          file.state = 'failed';
          file.error = `not confirmed in the bucket: ${describe(error)}`;
        }
      });
      record.durations.confirmMs += Date.now() - confirmStarted;
      if (signal?.aborted) return await fail('interrupted; run it again to resume');
    }
    const sendable = scope.filter((b) => b.keys.every((k) => confirmed.has(k)));

    // 3. The mapping file, when the mapping is stored rather than sent inline.
    if (record.mapping?.storage === 'file' && sendable.length > 0) {
      await s3.send(
        new PutObjectCommand({
          Bucket: args.bucket.bucket,
          Key: `delivery/mapping/${record.mapping.name}`,
          Body: record.mapping.yaml,
          ContentType: 'application/yaml',
        }),
        { abortSignal: signal },
      );
    }

    // 4. Ingest, batch by batch, recording each state as it happens.
    record.state = 'ingesting';
    await store.save(record, { full: true });
    emit({ type: 'phase', phase: 'ingest', batches: sendable.length });
    for (const batch of sendable) {
      await args.pause?.whenOpen();
      if (signal?.aborted) return await fail('interrupted between batches; run it again to resume');
      batch.state = 'sent';
      batch.attempts++;
      batch.sentAt = new Date().toISOString();
      delete batch.error;
      await store.saveBatch(record, batch); // durable before the request leaves
      const tracks = record.tracks?.[batch.index] ?? [];
      emit({ type: 'batch', index: batch.index, state: 'sent', tracks: tracks.length });
      const started = Date.now();
      let answer: IngestionResponse;
      try {
        answer = await send(record, batch, args.api);
      } catch (error) {
        record.durations.ingestMs += Date.now() - started;
        batch.state = 'failed';
        batch.answeredAt = new Date().toISOString();
        batch.error = describe(error);
        if (error instanceof ApiError && error.status > 0) {
          batch.response = { status: error.status, body: error.body };
        }
        emit({
          type: 'batch',
          index: batch.index,
          state: 'failed',
          tracks: tracks.length,
          message: batch.error,
        });
        return await fail(
          `batch ${batch.index + 1} of ${record.batches.length} failed: ${batch.error}`,
        );
      }
      record.durations.ingestMs += Date.now() - started;
      batch.state = 'accepted';
      batch.answeredAt = new Date().toISOString();
      batch.response = { status: answer.status, body: answer.body };
      await store.saveBatch(record, batch);
      await args.ledger?.record(ledgerEntries(record, batch));
      emit({ type: 'batch', index: batch.index, state: 'accepted', tracks: tracks.length });
    }
    const waiting = record.batches.filter((b) => b.state !== 'accepted');
    if (waiting.length > 0) return await fail(waitingMessage(record, waiting.length));
    record.state = 'accepted';
    record.finishedAt = new Date().toISOString();
    await store.save(record);
    emit({ type: 'finished', state: 'accepted' });
    return record;
  } catch (error) {
    return await fail(describe(error));
  } finally {
    if (!args.s3) s3.destroy();
  }
}

/**
 * What the service now holds from an accepted request: json, each track as sent with its audio's
 * identity; a folder call, each file under the name the service gives it (its file name, or the
 * mapping's outer_id).
 */
export function ledgerEntries(record: DeliveryRecord, batch: DeliveryBatch): LedgerEntry[] {
  const at = batch.answeredAt ?? new Date().toISOString();
  const fileOf = filesByKey(record.files);
  const audio = (key: string) => {
    const file = fileOf.get(key);
    if (!file) return {};
    const { path, localPath, size, mtimeMs, md5 } = file;
    return { path, localPath, size, mtimeMs, md5 };
  };
  if (record.mode === 'json') {
    return (record.tracks?.[batch.index] ?? []).map((body) => ({
      outer_id: body.outer_id,
      mode: record.mode,
      ...(record.options.media_fetch_type === 's3'
        ? (record.audioOf?.[body.outer_id] ?? audio(AUDIO_ROOT + body.primary_media))
        : {}),
      primary_media: body.primary_media,
      body,
      delivery: record.id,
      at,
    }));
  }
  const nameOf = recordNamer(record);
  return batch.keys.map((key) => {
    return {
      outer_id: nameOf(key).outer_id,
      mode: record.mode,
      ...audio(key),
      primary_media: key.slice(AUDIO_ROOT.length),
      delivery: record.id,
      at,
    };
  });
}

/**
 * Appends to the ledger the tracks of the record's accepted requests that it lacks, or holds
 * only from before that request was accepted. An entry accepted later (another delivery's)
 * stays: it is what the service holds now.
 */
async function recordMissedAcceptances(
  record: DeliveryRecord,
  ledger: CatalogLedger,
): Promise<void> {
  const missed = record.batches
    .filter((b) => b.state === 'accepted')
    .flatMap((batch) => ledgerEntries(record, batch))
    .filter((entry) => {
      const known = ledger.get(entry.outer_id);
      return !known || (known.delivery !== record.id && known.at < entry.at);
    });
  await ledger.record(missed);
}

/** Each record's files by key, made once per files list (not once per accepted request). */
const byKeyCache = new WeakMap<DeliveryFile[], Map<string, DeliveryFile>>();

function filesByKey(files: DeliveryFile[]): Map<string, DeliveryFile> {
  let map = byKeyCache.get(files);
  if (!map || map.size !== files.length) {
    map = new Map(files.map((f) => [f.key, f]));
    byKeyCache.set(files, map);
  }
  return map;
}

/** Why a run ended with requests unsent: the failed files they wait for. */
function waitingMessage(record: DeliveryRecord, waiting: number): string {
  const failed = record.files.filter((f) => f.state === 'failed');
  const first = failed[0];
  const requests = `${waiting} of ${record.batches.length} request(s) not sent`;
  if (!first) return `${requests}; run it again to resume`;
  return `${failed.length} file(s) could not be uploaded or confirmed (first: ${first.path}: ${first.error ?? 'unknown error'}); ${requests}: retry the failed files`;
}

/** The one ingestion request of a batch, with the record's parameters. */
function send(
  record: DeliveryRecord,
  batch: DeliveryBatch,
  api: ServiceClient,
): Promise<IngestionResponse> {
  const { options } = record;
  if (record.mode === 'json') {
    return api.ingestJson(record.tracks?.[batch.index] ?? [], {
      catalog_id: record.catalogId,
      media_fetch_type: options.media_fetch_type,
      ingestion_id: options.ingestion_id,
      overwrite_audio_file: batch.overwriteAudio ?? options.overwrite_audio_file,
      delete_delivered_file: options.delete_delivered_file,
    });
  }
  const target = {
    catalog_id: record.catalogId,
    delivery_dir_path: record.folder,
    delete_delivered_file: options.delete_delivered_file,
  };
  if (record.mode === 'audio_only') return api.ingestAudioOnly(target);
  const mapping = record.mapping!;
  return api.ingestAudioMapping(
    mapping.storage === 'file'
      ? { ...target, mapping_filename: mapping.name }
      : { ...target, mapping_content: mapping.yaml },
  );
}
