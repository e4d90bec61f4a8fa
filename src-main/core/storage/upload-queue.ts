import { setMaxListeners } from 'node:events';

import type { S3Client } from '@aws-sdk/client-s3';

import { resolveTimeouts } from '../network/timeouts.js';
import { BufferPool } from './buffer-pool.js';
import { ConcurrencyBudget } from './concurrency-budget.js';
import { HashPool } from './file-checksum.js';
import { KnownObjects } from './known-objects.js';
import { LinkProbe } from './link-probe.js';
import { PART_LIMITS, SINGLE_PUT_MAX } from './part-size.js';
import { ProgressTracker } from './progress.js';
import { RateLimiter } from './rate-limiter.js';
import { type FileOutcome, uploadFile, type UploadItem } from './resumable-upload.js';
import { S3Capabilities } from './s3-capabilities.js';
import { createS3Client, type S3Target } from './s3-client.js';
import { TransferPause } from './transfer-pause.js';
import type { UploadContext, UploadEvent, UploadOptions } from './upload-context.js';

/** The result of a run: one outcome per file; `ok` only when every file is in the bucket. */
export interface UploadReport {
  ok: boolean;
  files: FileOutcome[];
  /** Bytes handed to the network in this run, retries and unfinished attempts included. */
  bytesSent: number;
  canceled: boolean;
}

/** Default number of transfers in flight: enough to fill a typical uplink without hogging it. */
export const DEFAULT_CONCURRENCY = 8;

/**
 * Uploads many files to one bucket with one shared concurrency budget, pause / resume / cancel,
 * throttled progress and per-file outcomes. Create it, subscribe with `on()`, then `start()`.
 */
export class UploadQueue {
  private readonly listeners = new Set<(event: UploadEvent) => void>();
  private readonly abort = new AbortController();
  private progress: ProgressTracker | undefined;
  private readonly pauser = new TransferPause((state) => {
    if (state.state === 'running') {
      this.progress?.resume();
      this.emit({ type: 'resumed' });
    } else if (state.state === 'pausing') {
      this.emit({ type: 'pausing', finishing: state.finishing });
    } else {
      this.progress?.pause();
      this.emit({ type: 'paused' });
    }
  });
  private started = false;
  private stopping = false;

  constructor(
    private readonly init: {
      target: S3Target;
      dataDir: string;
      items: UploadItem[];
      options?: UploadOptions;
      /** An existing client (tests); otherwise one is created for the target. */
      client?: S3Client;
    },
  ) {
    // Every waiting part listens for cancel; thousands of listeners are expected, not a leak.
    setMaxListeners(0, this.abort.signal);
  }

  /** Subscribes to events; returns the unsubscribe function. */
  on(listener: (event: UploadEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts no new request; requests in flight get 750 ms to finish, then are aborted and sent
   * again on resume. Emits `pausing` (with the requests finishing) and then `paused` once
   * nothing is in flight — see `TransferPause`.
   */
  pause(): void {
    this.pauser.pause();
  }

  /** Continues after `pause()`. */
  resume(): void {
    this.pauser.resume();
  }

  /**
   * Stops everything now but keeps the multipart uploads and their journals, so the next run
   * resumes where this one stopped (quit, Ctrl-C, sleep): only the parts in flight are lost.
   */
  stop(): void {
    this.stopping = true;
    this.cancel();
  }

  /** Stops everything now, aborts the multipart uploads this run holds and clears their journals. */
  cancel(): void {
    this.abort.abort(Object.assign(new Error('Upload canceled.'), { name: 'AbortError' }));
    this.pauser.release();
  }

  /** Runs the uploads to the end (or to cancel) and reports every file's outcome. */
  async start(): Promise<UploadReport> {
    if (this.started) throw new Error('An UploadQueue runs once.');
    this.started = true;
    const { target, dataDir, items, options = {} } = this.init;
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    const timeouts = resolveTimeouts(target.timeouts, {
      idleMs: options.idleTimeoutMs,
      connectMs: options.connectTimeoutMs,
      retryBudgetMs: options.retryBudgetMs,
    });
    const client =
      this.init.client ??
      createS3Client({ ...target, timeouts }, { maxSockets: concurrency * 2 + 4 });
    // Two hashing threads: MD5 of a part is on its critical path, and a loaded machine slows it.
    const hashes = new HashPool(2);
    const probe = new LinkProbe();
    this.abort.signal.addEventListener('abort', () => probe.end(), { once: true });
    const progress = new ProgressTracker((snapshot) => {
      probe.sawRate(snapshot.bytesPerSecond);
      this.emit({ type: 'progress', ...snapshot });
    });
    this.progress = progress;
    if (this.pauser.state.state === 'paused') progress.pause();
    const ctx: UploadContext = {
      client,
      bucket: target.bucket,
      dataDir,
      budget: new ConcurrencyBudget(concurrency),
      limiter: options.bytesPerSecond ? new RateLimiter(options.bytesPerSecond) : undefined,
      hashes,
      buffers: new BufferPool(concurrency),
      smallBuffers: new BufferPool(concurrency),
      capabilities: new S3Capabilities(),
      progress,
      signal: this.abort.signal,
      whenRunning: () =>
        this.abort.signal.aborted ? Promise.resolve() : this.pauser.whenRunning(),
      isPaused: () => this.pauser.paused && !this.abort.signal.aborted,
      pause: this.pauser,
      isStopping: () => this.stopping,
      emit: (event) => {
        if (event.type === 'part-start') progress.sending(event.key, event.partNumber, event.bytes);
        this.emit(event);
      },
      stats: { bytesSent: 0 },
      partSizeFloor: options.testPartSizeFloor ?? PART_LIMITS.floor,
      singlePutMax: Math.min(
        PART_LIMITS.max,
        options.singlePutMaxBytes ??
          (options.testPartSizeFloor !== undefined ? options.testPartSizeFloor : SINGLE_PUT_MAX),
      ),
      maxAttempts: options.maxAttempts ?? 8,
      retryBaseMs: options.retryBaseMs ?? 250,
      retryBudgetMs: timeouts.retryBudgetMs,
      fileRetryBudgetMs: timeouts.fileRetryBudgetMs,
      retrySpentMs: new Map(),
    };

    const outcomes: FileOutcome[] = new Array(items.length);
    const seen = new Set<string>();
    const todo: number[] = [];
    items.forEach((item, index) => {
      if (seen.has(item.key)) {
        outcomes[index] = {
          ...item,
          status: 'failed',
          code: 'duplicate-key',
          message: `Two files map to ${item.key}; rename one of them.`,
        };
      } else {
        seen.add(item.key);
        todo.push(index);
      }
    });
    try {
      // One listing per folder instead of a HeadObject per file (known-objects.ts).
      ctx.known = await KnownObjects.read(
        client,
        target.bucket,
        todo.map((index) => items[index]!.key),
        this.abort.signal,
      );
    } catch (error) {
      if (!this.abort.signal.aborted) throw error;
    }
    // One worker per slot keeps the budget full across file boundaries; parts queue in the budget.
    // All but the probe's workers wait until the link's speed is known (see LinkProbe).
    let next = 0;
    const worker = async (slot: number): Promise<void> => {
      if (slot >= probe.probeFiles) await probe.opened;
      while (next < todo.length) {
        const index = todo[next++]!;
        outcomes[index] = await uploadFile(ctx, items[index]!);
        probe.fileEnded();
      }
    };
    try {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, todo.length) }, (_, slot) => worker(slot)),
      );
    } finally {
      progress.flush();
      // A delivery keeps its queue through its requests (to pause it, to show it): not the
      // buffers of its transfers, some 32 MiB of them.
      ctx.buffers.clear();
      ctx.smallBuffers.clear();
      await hashes.close();
      if (!this.init.client) client.destroy();
    }
    return {
      ok: outcomes.every((o) => o.status === 'uploaded' || o.status === 'skipped'),
      files: outcomes,
      bytesSent: ctx.stats.bytesSent,
      canceled: this.abort.signal.aborted,
    };
  }

  private emit(event: UploadEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
