import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

import { CourierError } from '../errors.js';
import { type FileFingerprint, sameStat } from '../files/file-fingerprint.js';
import { NetworkError } from '../network/reachability.js';
import { expectedEtags, readFully } from './file-checksum.js';
import { assertDeliveryKey } from './object-key.js';
import { choosePartSize, partCount, partRange, singlePutLimit } from './part-size.js';
import { paced } from './rate-limiter.js';
import { backoffDelay, classifyFailure, sleep } from './retry.js';
import { isUnsupported } from './s3-capabilities.js';
import { reachabilityOf } from './s3-client.js';
import { type Flight, PausedRequest } from './transfer-pause.js';
import type { RestartReason, UploadContext } from './upload-context.js';
import {
  type JournalEntry,
  journalFile,
  type JournalPart,
  JournalWriter,
  readJournal,
  removeJournal,
} from './upload-journal.js';
import { acquireKeyLock } from './upload-lock.js';

/** One file to upload and the key it goes to. */
export interface UploadItem {
  localPath: string;
  key: string;
  /** The file as a delivery planned it: a file that differs is not sent (see `changedSincePlanned`). */
  planned?: FileFingerprint;
}

/** How one file ended. */
export type FileOutcome =
  | { key: string; localPath: string; status: 'uploaded' | 'skipped'; size: number }
  | {
      key: string;
      localPath: string;
      status: 'failed' | 'canceled';
      code: string;
      message: string;
    };

/** The file on disk is not the one its delivery planned: sending it would pair it with stale metadata. */
function changedSincePlanned(localPath: string): CourierError {
  return new CourierError(
    'changed-since-planned',
    `${localPath} changed on disk after the delivery was planned; it was not sent — run the delivery again to read it afresh.`,
  );
}

/** Thrown inside a file's upload to start it over with a fresh multipart upload. */
class RestartFile extends Error {
  constructor(readonly reason: RestartReason) {
    super(reason);
  }
}

const MiB = 1024 * 1024;

const etagOf = (value: string | undefined): string => (value ?? '').replaceAll('"', '');

/**
 * Runs one S3 request with retries: exponential backoff with full jitter on network errors and
 * 5xx, the shared budget halved on SlowDown / 429. `attempt` builds and sends a fresh request
 * each time, so every attempt is signed just before it leaves (no stale signatures in queues).
 */
export async function withRetries<T>(
  ctx: UploadContext,
  key: string,
  operation: string,
  attempt: (n: number) => Promise<T>,
  maxAttempts = ctx.maxAttempts,
): Promise<T> {
  const startedAt = Date.now();
  for (let n = 1; ; n++) {
    const attemptedAt = Date.now();
    try {
      const result = await attempt(n);
      ctx.budget.onSuccess();
      return result;
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const kind = classifyFailure(error);
      if (kind !== 'retry' && kind !== 'slow-down') throw error;
      const delayMs =
        backoffDelay(n, ctx.retryBaseMs) + (kind === 'slow-down' ? ctx.retryBaseMs : 0);
      const spent = (ctx.retrySpentMs.get(key) ?? 0) + Date.now() - attemptedAt + delayMs;
      ctx.retrySpentMs.set(key, spent);
      const fileSpent = spent > ctx.fileRetryBudgetMs;
      const lastTry =
        fileSpent || n >= maxAttempts || Date.now() + delayMs - startedAt > ctx.retryBudgetMs;
      // A bucket that never answered once is reported as unreachable, for every file at once.
      const unreachable =
        error instanceof NetworkError
          ? reachabilityOf(ctx.client)?.giveUp(error, lastTry ? Infinity : Date.now() + delayMs)
          : undefined;
      if (unreachable) throw unreachable;
      if (fileSpent) throw retriesSpent(key, ctx.fileRetryBudgetMs, error);
      if (lastTry) throw error;
      if (kind === 'slow-down' && ctx.budget.onThrottle()) {
        ctx.emit({ type: 'concurrency', limit: ctx.budget.limit });
      }
      ctx.emit({ type: 'retry', key, operation, attempt: n, delayMs, reason: describe(error) });
      await sleep(delayMs, ctx.signal);
    }
  }
}

function describe(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string };
  return [e?.name, e?.code, e?.message].filter(Boolean).join(': ').slice(0, 200);
}

/** A file whose requests used up its retry time (`fileRetryBudgetMs`). */
function retriesSpent(key: string, budgetMs: number, last: unknown): CourierError {
  const e = last as { name?: string; code?: string };
  return new CourierError(
    'retries-spent',
    `Uploading ${key} failed: its requests kept failing for ${Math.round(budgetMs / 1000)} s in all (last: ${e?.name ?? e?.code ?? 'error'}); run it again later — it resumes.`,
  );
}

/**
 * Uploads one file to its key and confirms it with HeadObject: a single PUT for small files,
 * otherwise a multipart upload resumed from its journal (reconciled with ListParts where the
 * server has it). Never throws: every ending is a FileOutcome.
 */
export async function uploadFile(ctx: UploadContext, item: UploadItem): Promise<FileOutcome> {
  const { key, localPath } = item;
  let release: (() => Promise<void>) | undefined;
  let writer: JournalWriter | undefined;
  try {
    assertDeliveryKey(key);
    await ctx.whenRunning();
    release = await acquireKeyLock(journalFile(ctx.dataDir, ctx.bucket, key));
    for (let restarts = 0; ; restarts++) {
      try {
        return await uploadOnce(ctx, item, (w) => (writer = w));
      } catch (error) {
        if (!(error instanceof RestartFile) || restarts >= 2) throw error;
        ctx.emit({ type: 'file-restarted', key, reason: error.reason });
      }
    }
  } catch (error) {
    if (ctx.signal.aborted) {
      if (ctx.isStopping()) {
        const message = 'Upload stopped; run it again to resume.';
        return { key, localPath, status: 'canceled', code: 'stopped', message };
      }
      await abandon(ctx, key, writer?.entry);
      return { key, localPath, status: 'canceled', code: 'canceled', message: 'Upload canceled.' };
    }
    const { code, message } = explain(error, key, localPath);
    ctx.emit({ type: 'file-failed', key, localPath, code, message });
    return { key, localPath, status: 'failed', code, message };
  } finally {
    await release?.();
  }
}

async function uploadOnce(
  ctx: UploadContext,
  { key, localPath, planned }: UploadItem,
  onWriter: (writer: JournalWriter) => void,
): Promise<FileOutcome> {
  const info = await stat(localPath);
  const size = info.size;
  const mtimeMs = Math.floor(info.mtimeMs);
  if (planned && !sameStat(planned, info)) {
    // Touched or copied back unchanged is the same file; anything else is not what was planned.
    const md5 = size === planned.size ? await ctx.hashes.fileMd5(localPath, 0, size) : undefined;
    if (md5?.toString('hex') !== planned.md5) throw changedSincePlanned(localPath);
  }
  const partSize = choosePartSize(size, ctx.partSizeFloor);
  ctx.progress.addFile(key, size);
  let journal = await readJournal(ctx.dataDir, ctx.bucket, key);

  const sameLocal = (entry: JournalEntry): boolean =>
    entry.size === size && entry.mtimeMs === mtimeMs;
  if (journal?.state === 'uploading' && (!sameLocal(journal) || journal.partSize !== partSize)) {
    // The local file changed since the upload began: its parts can't be reused.
    await abandon(ctx, key, journal);
    ctx.emit({
      type: 'file-restarted',
      key,
      reason: sameLocal(journal) ? 'part-size-changed' : 'local-file-changed',
    });
    journal = undefined;
  }
  if (
    journal?.state !== 'uploading' &&
    (await alreadyInBucket(ctx, key, localPath, size, partSize, journal, mtimeMs))
  ) {
    ctx.progress.known(key, size);
    ctx.progress.fileDone(key);
    ctx.emit({ type: 'file-skipped', key, localPath, size, reason: 'already-in-bucket' });
    return { key, localPath, status: 'skipped', size };
  }

  const writerFor = (entry: JournalEntry): JournalWriter => {
    const writer = new JournalWriter(ctx.dataDir, entry);
    onWriter(writer);
    return writer;
  };
  let etag: string;
  const putLimit = singlePutLimit({
    floor: ctx.partSizeFloor,
    max: ctx.singlePutMax,
    bytesPerSecond: ctx.progress.bytesPerSecond(),
    concurrency: ctx.budget.limit,
  });
  // A multipart upload already under way is resumed, whatever the link's speed is now.
  if (journal?.state !== 'uploading' && size <= putLimit) {
    ctx.emit({ type: 'file-start', key, localPath, size, resumedBytes: 0, multipart: false });
    const put = await putWhole(ctx, key, localPath, size, mtimeMs, planned);
    etag = put.etag;
    ctx.progress.confirm(key, size, 1);
    ctx.emit({ type: 'file-verifying', key });
    // The bucket answered with the MD5 or CRC32 of these bytes: it holds them, and a HeadObject
    // would say nothing more. Any other answer (SSE-KMS ETags, stores that ignore checksums) is
    // confirmed with HeadObject.
    if (!put.confirmed) await verifyObject(ctx, key, size);
  } else {
    etag = await uploadMultipart(ctx, key, localPath, size, mtimeMs, partSize, journal, writerFor);
    await verifyObject(ctx, key, size);
  }
  const done: JournalEntry = {
    version: 1,
    bucket: ctx.bucket,
    key,
    localPath,
    size,
    mtimeMs,
    state: 'complete',
    parts: [],
    etag,
    updatedAt: '',
  };
  await new JournalWriter(ctx.dataDir, done).commit();
  ctx.progress.fileDone(key);
  ctx.emit({ type: 'file-done', key, localPath, size, etag });
  return { key, localPath, status: 'uploaded', size };
}

/** True when the bucket already holds this file: same size and, where we can tell, same bytes. */
async function alreadyInBucket(
  ctx: UploadContext,
  key: string,
  localPath: string,
  size: number,
  partSize: number,
  journal: JournalEntry | undefined,
  mtimeMs: number,
): Promise<boolean> {
  // The run's listing of the folder answers without a request; a key it didn't cover is asked.
  const listed = ctx.known?.lookup(key);
  const head =
    listed !== undefined
      ? listed && { ContentLength: listed.size, ETag: listed.etag }
      : await withRetries(ctx, key, 'HeadObject', () =>
          ctx.client.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: key }), {
            abortSignal: ctx.signal,
          }),
        ).catch((error: unknown) => {
          const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata
            ?.httpStatusCode;
          if (status === 404) return undefined;
          throw error;
        });
  if (!head || head.ContentLength !== size) return false;
  const remote = etagOf(head.ETag);
  // Our own finished upload of this very file: nothing to re-read.
  if (journal?.state === 'complete' && journal.size === size && journal.mtimeMs === mtimeMs) {
    return journal.etag === remote;
  }
  const floor = ctx.partSizeFloor;
  const candidates = await expectedEtags(
    localPath,
    size,
    size <= floor ? Math.max(size, 1) : partSize,
    ctx.hashes,
  );
  return candidates.includes(remote);
}

/** A whole file's PUT: the object's ETag, and whether the answer shows the bucket holds these bytes. */
interface PutResult {
  etag: string;
  confirmed: boolean;
}

/** Files up to this size go in one PUT from memory, read once (`putFromMemory`). */
export const MEMORY_PUT_MAX = 4 * MiB;

/**
 * Sends a whole file in one PUT. A small one is read once into a pooled buffer, hashed there and
 * sent from it (`putFromMemory`). A larger one is streamed from disk: its MD5 (for Content-MD5,
 * which S3 checks) is read by a hashing thread first, then each attempt streams the file afresh,
 * so memory stays small whatever the file's size. A file that changes on disk in between
 * restarts its upload.
 */
async function putWhole(
  ctx: UploadContext,
  key: string,
  localPath: string,
  size: number,
  mtimeMs: number,
  planned: FileFingerprint | undefined,
): Promise<PutResult> {
  // A bandwidth limit paces what is read from a stream (`paced`): with one, small files stream too.
  if (size > 0 && size <= MEMORY_PUT_MAX && !ctx.limiter) {
    return putFromMemory(ctx, key, localPath, size, mtimeMs, planned);
  }
  const digest = await ctx.hashes.fileMd5(localPath, 0, size);
  if (planned && digest.toString('hex') !== planned.md5) throw changedSincePlanned(localPath);
  const md5 = digest.toString('base64');
  const unchanged = async (): Promise<void> => {
    const now = await stat(localPath);
    if (now.size !== size || Math.floor(now.mtimeMs) !== mtimeMs) {
      throw new RestartFile('local-file-changed');
    }
  };
  const response = await withRetries(ctx, key, 'PutObject', (attempt) =>
    holdingSlot(ctx, ctx.signal, async (takeOff) => {
      await unchanged();
      const wire = takeOff();
      ctx.emit({ type: 'part-start', key, partNumber: 1, bytes: size, attempt });
      ctx.stats.bytesSent += size;
      const file =
        size === 0
          ? undefined
          : createReadStream(localPath, { start: 0, end: size - 1, highWaterMark: MiB });
      const body =
        file === undefined
          ? new Uint8Array()
          : ctx.limiter
            ? paced(file, ctx.limiter, wire, (n) => ctx.progress.handed(key, 1, n))
            : file;
      try {
        const sent = await ctx.client.send(
          new PutObjectCommand({
            Bucket: ctx.bucket,
            Key: key,
            Body: body,
            ContentLength: size,
            ContentMD5: md5,
          }),
          { abortSignal: wire },
        );
        await unchanged();
        return sent;
      } catch (error) {
        ctx.progress.lost(key, 1);
        throw error;
      } finally {
        file?.destroy();
        if (body !== file && body instanceof Readable) body.destroy();
      }
    }),
  );
  ctx.emit({ type: 'part-done', key, partNumber: 1, bytes: size });
  const etag = etagOf(response.ETag);
  return { etag, confirmed: etag === digest.toString('hex') };
}

/**
 * One PUT of a small file from memory: one open and read (no stream, no second read by the
 * hashing thread), and every attempt sends those bytes. Per file, that is what a folder of many
 * small masters spends most on, so the bytes are not hashed here unless they must be:
 * - A file its delivery planned was hashed then, and its size and date say it is unchanged: its
 *   planned MD5 goes as Content-MD5, which the bucket checks, and comes back as the ETag (the MD5
 *   the bucket took of what it received). Only when it does not (a bucket whose ETags are not
 *   MD5s, a file rewritten with the same size and date) are the bytes hashed, to tell which.
 * - Any other file goes with its CRC32 (`x-amz-checksum-crc32`, a hundredth of an MD5's cost),
 *   which the bucket checks and echoes; a bucket that does not echo it gets the MD5 compared
 *   with its ETag instead.
 * The file must be as it was stat'ed once read: what is sent is then the file.
 */
async function putFromMemory(
  ctx: UploadContext,
  key: string,
  localPath: string,
  size: number,
  mtimeMs: number,
  planned: FileFingerprint | undefined,
): Promise<PutResult> {
  const data = ctx.smallBuffers.take(size, MEMORY_PUT_MAX);
  try {
    const handle = await open(localPath, 'r');
    try {
      await readFully(handle, data, 0, size);
      const now = await handle.stat();
      if (now.size !== size || Math.floor(now.mtimeMs) !== mtimeMs) {
        throw new RestartFile('local-file-changed');
      }
    } finally {
      await handle.close();
    }
    let md5: string | undefined;
    const md5Hex = () => (md5 ??= createHash('md5').update(data).digest('hex'));
    /** The planned file, unless these bytes are not it. */
    const assertPlanned = () => {
      if (planned && md5Hex() !== planned.md5) throw changedSincePlanned(localPath);
    };
    const crc32 = planned ? undefined : crc32Base64(data);
    const response = await withRetries(ctx, key, 'PutObject', (attempt) =>
      holdingSlot(ctx, ctx.signal, async (takeOff) => {
        const wire = takeOff();
        ctx.emit({ type: 'part-start', key, partNumber: 1, bytes: size, attempt });
        ctx.stats.bytesSent += size;
        try {
          return await ctx.client.send(
            new PutObjectCommand({
              Bucket: ctx.bucket,
              Key: key,
              Body: data,
              ContentLength: size,
              ...(planned
                ? { ContentMD5: Buffer.from(planned.md5, 'hex').toString('base64') }
                : { ChecksumCRC32: crc32, ChecksumAlgorithm: 'CRC32' }),
            }),
            { abortSignal: wire },
          );
        } catch (error) {
          ctx.progress.lost(key, 1);
          // The bucket refused the bytes for the plan's MD5: changed on disk, or in transit.
          if ((error as { name?: string }).name === 'BadDigest') assertPlanned();
          throw error;
        }
      }),
    );
    ctx.emit({ type: 'part-done', key, partNumber: 1, bytes: size });
    const etag = etagOf(response.ETag);
    if (planned) {
      if (etag === planned.md5) return { etag, confirmed: true };
      assertPlanned();
      return { etag, confirmed: false };
    }
    if (response.ChecksumCRC32 === crc32) return { etag, confirmed: true };
    return { etag, confirmed: etag === md5Hex() };
  } finally {
    ctx.smallBuffers.give(data);
  }
}

/** A buffer's CRC32 as S3 spells it: the four big-endian bytes in base64. */
function crc32Base64(data: Uint8Array): string {
  const value = Buffer.alloc(4);
  value.writeUInt32BE(crc32(data) >>> 0);
  return value.toString('base64');
}

/**
 * Runs `send` while holding one slot of the shared budget. `send` calls `takeOff()` just before
 * its request leaves and sends it with the signal it returns. A pause that began while this
 * transfer waited for a slot, or was being read and hashed, holds it back; one that aborts it in
 * flight (see `TransferPause`) sends it again after resume — neither counts as a failed attempt.
 */
async function holdingSlot<T>(
  ctx: UploadContext,
  signal: AbortSignal,
  send: (takeOff: () => AbortSignal) => Promise<T>,
): Promise<T> {
  for (;;) {
    await ctx.whenRunning();
    await ctx.budget.acquire(signal);
    let flight: Flight | undefined;
    try {
      if (ctx.isPaused()) continue;
      return await send(() => {
        flight = ctx.pause.open(signal);
        if (!flight) throw new PausedRequest();
        return flight.signal;
      });
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof PausedRequest || flight?.pausedOut) continue;
      throw error;
    } finally {
      flight?.close();
      ctx.budget.release();
    }
  }
}

/**
 * One part: holds a budget slot, reads and hashes a slice of the file into a pooled buffer,
 * sends it, then gives the buffer and the slot back. Memory is bounded by the budget: a part's
 * bytes are held only while its slot is.
 */
async function transfer<T>(
  ctx: UploadContext,
  slice: { localPath: string; start: number; length: number; capacity: number },
  signal: AbortSignal,
  send: (data: Buffer, md5: string, takeOff: () => AbortSignal) => Promise<T>,
): Promise<T> {
  return holdingSlot(ctx, signal, async (takeOff) => {
    const buffer = ctx.buffers.take(slice.length, slice.capacity);
    try {
      const handle = await open(slice.localPath, 'r');
      try {
        await readFully(handle, buffer, slice.start, slice.length);
      } finally {
        await handle.close();
      }
      const md5 = await ctx.hashes.md5(buffer);
      return await send(buffer, md5.toString('base64'), takeOff);
    } finally {
      ctx.buffers.give(buffer);
    }
  });
}

async function uploadMultipart(
  ctx: UploadContext,
  key: string,
  localPath: string,
  size: number,
  mtimeMs: number,
  partSize: number,
  journal: JournalEntry | undefined,
  writerFor: (entry: JournalEntry) => JournalWriter,
): Promise<string> {
  let entry = journal?.state === 'uploading' ? journal : undefined;
  const resumed = entry !== undefined;
  if (entry) {
    try {
      entry.parts = await reconcile(ctx, key, entry);
    } catch (error) {
      // The upload is gone: maybe because it was completed just before a crash.
      if (error instanceof RestartFile) {
        const etag = await matchingObject(ctx, key, localPath, size, partSize);
        if (etag !== undefined) return etag;
      }
      throw error;
    }
  }
  if (!entry) {
    const created = await withRetries(ctx, key, 'CreateMultipartUpload', () =>
      ctx.client.send(new CreateMultipartUploadCommand({ Bucket: ctx.bucket, Key: key }), {
        abortSignal: ctx.signal,
      }),
    );
    entry = {
      version: 1,
      bucket: ctx.bucket,
      key,
      localPath,
      size,
      mtimeMs,
      state: 'uploading',
      uploadId: created.UploadId!,
      partSize,
      parts: [],
      updatedAt: '',
    };
  }
  const writer = writerFor(entry);
  // Journal the upload id before the first part, so a crash can always resume or abort it.
  await writer.commit();
  const uploadId = entry.uploadId!;
  const done = new Set(entry.parts.map((p) => p.partNumber));
  const resumedBytes = entry.parts.reduce((sum, p) => sum + p.size, 0);
  ctx.progress.known(key, resumedBytes);
  ctx.emit({ type: 'file-start', key, localPath, size, resumedBytes, multipart: true });

  const fileAbort = new AbortController();
  setMaxListeners(0, fileAbort.signal);
  const onRunAbort = (): void => fileAbort.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  let confirmedHere = 0;
  const total = partCount(size, partSize);
  const sendPart = async (partNumber: number): Promise<void> => {
    const { start, end } = partRange(size, partSize, partNumber);
    const bytes = end - start;
    const slice = { localPath, start, length: bytes, capacity: partSize };
    const part = await withRetries(ctx, key, `UploadPart ${partNumber}`, (attempt) => {
      fileAbort.signal.throwIfAborted();
      return transfer(ctx, slice, fileAbort.signal, async (data, md5, takeOff) => {
        const wire = takeOff();
        ctx.emit({ type: 'part-start', key, partNumber, bytes, attempt });
        ctx.stats.bytesSent += bytes;
        const body = ctx.limiter
          ? paced(data, ctx.limiter, wire, (n) => ctx.progress.handed(key, partNumber, n))
          : data;
        try {
          const response = await ctx.client.send(
            new UploadPartCommand({
              Bucket: ctx.bucket,
              Key: key,
              UploadId: uploadId,
              PartNumber: partNumber,
              Body: body,
              ContentLength: bytes,
              ContentMD5: md5,
            }),
            { abortSignal: wire },
          );
          return {
            partNumber,
            etag: etagOf(response.ETag),
            md5,
            size: bytes,
          } satisfies JournalPart;
        } catch (error) {
          ctx.progress.lost(key, partNumber);
          throw error;
        } finally {
          // The pooled buffer goes back after this: nothing may read it any more.
          if (body instanceof Readable) body.destroy();
        }
      });
    });
    entry.parts.push(part);
    await writer.commit();
    confirmedHere += bytes;
    ctx.progress.confirm(key, bytes, partNumber);
    ctx.emit({ type: 'part-done', key, partNumber, bytes });
  };
  try {
    const pending: Promise<void>[] = [];
    for (let n = 1; n <= total; n++) {
      if (done.has(n)) continue;
      pending.push(
        sendPart(n).catch((error: unknown) => {
          fileAbort.abort(error);
          throw error;
        }),
      );
    }
    const results = await Promise.allSettled(pending);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw firstCause(failure.reason, results);
  } catch (error) {
    if (classifyFailure(error) === 'no-such-upload') {
      // The upload expired or was aborted elsewhere: take its bytes back and start this file over.
      ctx.progress.confirm(key, -confirmedHere);
      ctx.progress.known(key, -resumedBytes);
      await removeJournal(ctx.dataDir, ctx.bucket, key);
      throw new RestartFile('upload-expired');
    }
    throw error;
  } finally {
    ctx.signal.removeEventListener('abort', onRunAbort);
  }

  ctx.emit({ type: 'file-verifying', key });
  const parts = [...entry.parts].sort((a, b) => a.partNumber - b.partNumber);
  // A journal trusted without ListParts may describe an upload the server already completed (a
  // crash between Complete and the journal write); s3rver then fails Complete with a 500, so
  // don't spend the whole retry budget before checking the bucket.
  const trusting = resumed && !ctx.capabilities.listParts;
  try {
    const completed = await withRetries(
      ctx,
      key,
      'CompleteMultipartUpload',
      () =>
        ctx.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: ctx.bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: {
              Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: `"${p.etag}"` })),
            },
          }),
          { abortSignal: ctx.signal },
        ),
      trusting ? 2 : ctx.maxAttempts,
    );
    return etagOf(completed.ETag);
  } catch (error) {
    const expired = classifyFailure(error) === 'no-such-upload';
    if (ctx.signal.aborted) throw error;
    // A Complete that worked but whose answer was lost (a reset after the server did it, or a
    // crash before the journal) finds the upload gone: NoSuchUpload on S3, a 500 on s3rver. The
    // object is there if its size and checksum (ETag) match the local file.
    const etag = await matchingObject(ctx, key, localPath, size, partSize);
    if (etag !== undefined) return etag;
    if (!expired) throw error;
    ctx.progress.confirm(key, -confirmedHere);
    ctx.progress.known(key, -resumedBytes);
    await removeJournal(ctx.dataDir, ctx.bucket, key);
    throw new RestartFile('upload-expired');
  }
}

/** The object's ETag when the bucket holds exactly this file's bytes, else undefined. */
async function matchingObject(
  ctx: UploadContext,
  key: string,
  localPath: string,
  size: number,
  partSize: number,
): Promise<string | undefined> {
  const head = await ctx.client
    .send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: key }), { abortSignal: ctx.signal })
    .catch(() => undefined);
  if (head?.ContentLength !== size) return undefined;
  const etag = etagOf(head.ETag);
  const expected = await expectedEtags(localPath, size, partSize, ctx.hashes);
  return expected.includes(etag) ? etag : undefined;
}

/** Prefers a real cause over the aborts it triggered in sibling parts. */
function firstCause(reason: unknown, results: PromiseSettledResult<void>[]): unknown {
  for (const r of results) {
    if (r.status === 'rejected' && (r.reason as { name?: string })?.name !== 'AbortError')
      return r.reason;
  }
  return reason;
}

/**
 * Which journaled parts S3 still holds, asked with ListParts (paginated). A part counts only when
 * the server has it with the ETag we journaled; where ListParts isn't implemented (s3rver) the
 * journal is trusted. NoSuchUpload means the upload expired: start over.
 */
async function reconcile(
  ctx: UploadContext,
  key: string,
  entry: JournalEntry,
): Promise<JournalPart[]> {
  if (!ctx.capabilities.listParts) return entry.parts;
  const onServer = new Map<number, { etag: string; size: number }>();
  let marker: string | undefined;
  try {
    do {
      const page = await withRetries(ctx, key, 'ListParts', () =>
        ctx.client.send(
          new ListPartsCommand({
            Bucket: ctx.bucket,
            Key: key,
            UploadId: entry.uploadId,
            PartNumberMarker: marker,
          }),
          { abortSignal: ctx.signal },
        ),
      );
      for (const p of page.Parts ?? [])
        onServer.set(p.PartNumber!, { etag: etagOf(p.ETag), size: p.Size ?? -1 });
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
  } catch (error) {
    if (isUnsupported(error)) {
      ctx.capabilities.listParts = false;
      return entry.parts;
    }
    if (classifyFailure(error) === 'no-such-upload') {
      await removeJournal(ctx.dataDir, ctx.bucket, key);
      throw new RestartFile('upload-expired');
    }
    throw error;
  }
  return entry.parts.filter((p) => {
    const remote = onServer.get(p.partNumber);
    return remote?.etag === p.etag && remote.size === p.size;
  });
}

/** Aborts a multipart upload we started (best effort) and clears its journal. */
async function abandon(
  ctx: UploadContext,
  key: string,
  entry: JournalEntry | undefined,
): Promise<void> {
  if (entry?.state === 'uploading' && entry.uploadId && ctx.capabilities.abortMultipart) {
    try {
      await ctx.client.send(
        new AbortMultipartUploadCommand({ Bucket: ctx.bucket, Key: key, UploadId: entry.uploadId }),
      );
    } catch (error) {
      if (isUnsupported(error)) ctx.capabilities.abortMultipart = false;
    }
  }
  if (entry?.state === 'uploading') await removeJournal(ctx.dataDir, ctx.bucket, key);
}

/** Confirms the object is in the bucket with the file's size. */
async function verifyObject(ctx: UploadContext, key: string, size: number): Promise<void> {
  const head = await withRetries(ctx, key, 'HeadObject', () =>
    ctx.client.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: key }), {
      abortSignal: ctx.signal,
    }),
  );
  if (head.ContentLength !== size) {
    throw new CourierError(
      'verify-failed',
      `After upload, ${key} holds ${head.ContentLength} bytes instead of ${size}; run the upload again.`,
    );
  }
}

/** Turns any failure into a stable code and one clear message. */
function explain(
  error: unknown,
  key: string,
  localPath: string,
): { code: string; message: string } {
  if (error instanceof NetworkError) {
    return {
      code: 'network',
      message: `Uploading ${key} got no answer from ${error.host} (${error.reason}); check the connection and run the upload again — it resumes.`,
    };
  }
  if (error instanceof CourierError) return { code: error.code, message: error.message };
  const e = error as {
    name?: string;
    code?: string;
    path?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = e?.$metadata?.httpStatusCode;
  if (e?.code === 'ENOENT' && e.path === localPath) {
    return {
      code: 'file-missing',
      message: `${localPath} is gone; put it back or leave it out of the delivery.`,
    };
  }
  if (e?.code === 'EACCES' || e?.code === 'EPERM') {
    return {
      code: 'file-unreadable',
      message: `${localPath} can't be read; check its permissions.`,
    };
  }
  if (e?.name === 'AccessDenied' || status === 403) {
    return {
      code: 'access-denied',
      message: `The bucket refused to store ${key} (AccessDenied); the delivery key may be read-only or wrong — check the profile's bucket credentials.`,
    };
  }
  if (e?.name === 'NoSuchBucket') {
    return {
      code: 'no-such-bucket',
      message: `The bucket doesn't exist; check the profile's bucket name and region.`,
    };
  }
  if (e?.name === 'InvalidAccessKeyId' || e?.name === 'SignatureDoesNotMatch') {
    return {
      code: 'bad-credentials',
      message: `The bucket rejected the credentials (${e.name}); check the access key and secret.`,
    };
  }
  const kind = classifyFailure(error);
  if (kind === 'retry' || kind === 'slow-down') {
    return {
      code: 'network',
      message: `Uploading ${key} kept failing (${describe(error)}); check the connection and run the upload again — it resumes.`,
    };
  }
  if (status !== undefined && status >= 400 && status < 500) {
    // A refusal that no retry can change (e.g. KeyTooLongError, InvalidArgument).
    return {
      code: 'refused',
      message: `The bucket refused ${key} (${status}${e?.name && !/^\d+$/.test(e.name) ? ` ${e.name}` : ''}); ${
        e?.name === 'KeyTooLongError' ? 'shorten the path' : 'the file was not uploaded'
      }.`,
    };
  }
  return { code: 'upload-failed', message: `Uploading ${key} failed: ${describe(error)}.` };
}
