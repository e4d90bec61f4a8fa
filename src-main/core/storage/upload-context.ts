import type { S3Client } from '@aws-sdk/client-s3';

import type { BufferPool } from './buffer-pool.js';
import type { ConcurrencyBudget } from './concurrency-budget.js';
import type { HashPool } from './file-checksum.js';
import type { KnownObjects } from './known-objects.js';
import type { ProgressSnapshot, ProgressTracker } from './progress.js';
import type { RateLimiter } from './rate-limiter.js';
import type { S3Capabilities } from './s3-capabilities.js';
import type { TransferPause } from './transfer-pause.js';

/** Why a file's upload started over from its first part. */
export type RestartReason = 'local-file-changed' | 'upload-expired' | 'part-size-changed';

/** Everything the uploader tells its listeners (the CLI's lines, the app's progress view). */
export type UploadEvent =
  | {
      type: 'file-start';
      key: string;
      localPath: string;
      size: number;
      resumedBytes: number;
      multipart: boolean;
    }
  | {
      type: 'file-skipped';
      key: string;
      localPath: string;
      size: number;
      reason: 'already-in-bucket';
    }
  /** Every byte is in: the upload is being completed and checked with HeadObject. */
  | { type: 'file-verifying'; key: string }
  /** The bucket confirmed the file (HeadObject: its size; the ETag checked where one is known). */
  | { type: 'file-done'; key: string; localPath: string; size: number; etag: string }
  | { type: 'file-failed'; key: string; localPath: string; code: string; message: string }
  | { type: 'file-restarted'; key: string; reason: RestartReason }
  | { type: 'part-start'; key: string; partNumber: number; bytes: number; attempt: number }
  | { type: 'part-done'; key: string; partNumber: number; bytes: number }
  | {
      type: 'retry';
      key: string;
      operation: string;
      attempt: number;
      delayMs: number;
      reason: string;
    }
  | { type: 'concurrency'; limit: number }
  /** Paused, and `finishing` requests still in flight (they finish or are aborted within 1 s). */
  | { type: 'pausing'; finishing: number }
  /** Paused, and nothing in flight: no byte leaves until `resumed`. */
  | { type: 'paused' }
  | { type: 'resumed' }
  | ({ type: 'progress' } & ProgressSnapshot);

/** Tunables of an upload run; every field has a sensible default. */
export interface UploadOptions {
  /** Transfers in flight at once, files and parts together (default 8). */
  concurrency?: number;
  /** Optional bandwidth limit in bytes per second (bodies are paced to it in 64 KiB pieces). */
  bytesPerSecond?: number;
  /** Attempts per request before a file fails (default 8). */
  maxAttempts?: number;
  /** Base of the exponential backoff, in ms (default 250). */
  retryBaseMs?: number;
  /**
   * Idle-socket timeout per request, in ms (default: the target's, else 20 s): a request whose
   * connection carries no bytes this long is dropped and retried.
   */
  idleTimeoutMs?: number;
  /** Connect timeout per request, in ms (default: the target's, else 10 s). */
  connectTimeoutMs?: number;
  /**
   * A request is not retried once this long has passed since its first attempt (default: the
   * target's, else 60 s), whatever `maxAttempts` still allows.
   */
  retryBudgetMs?: number;
  /**
   * The largest file sent in one PUT once the link is known to be fast enough (default 64 MiB,
   * at most 5 GiB); larger files, and any file while the link's speed is unknown or slow, go
   * multipart and resume part by part. See `singlePutLimit`.
   */
  singlePutMaxBytes?: number;
  /**
   * FOR TESTS ONLY: lowers the 8 MiB part-size floor (and the single-PUT threshold with it) so
   * test data can be a few MiB. Real S3 rejects parts under 5 MiB; never set it in the product.
   * Unless `singlePutMaxBytes` is also given, files above this floor always go multipart.
   */
  testPartSizeFloor?: number;
}

/** Shared state of one upload run, handed to each file's upload. */
export interface UploadContext {
  client: S3Client;
  bucket: string;
  dataDir: string;
  budget: ConcurrencyBudget;
  limiter: RateLimiter | undefined;
  hashes: HashPool;
  buffers: BufferPool;
  /** Buffers of small files sent in one PUT from memory (`MEMORY_PUT_MAX` each). */
  smallBuffers: BufferPool;
  capabilities: S3Capabilities;
  /** The run's listings of its folders: what is already there, without a HeadObject per file. */
  known?: KnownObjects;
  progress: ProgressTracker;
  /** Aborted on cancel. */
  signal: AbortSignal;
  /** Resolves when the run is not paused. */
  whenRunning: () => Promise<void>;
  isPaused: () => boolean;
  /** Gates each request as it leaves, and winds down those in flight on pause. */
  pause: TransferPause;
  /** True when the abort is a stop (keep uploads and journals), not a cancel. */
  isStopping: () => boolean;
  emit: (event: UploadEvent) => void;
  /** Bytes handed to the network in this run, retries and unfinished attempts included. */
  stats: { bytesSent: number };
  partSizeFloor: number;
  /** The most `singlePutLimit` may allow. */
  singlePutMax: number;
  maxAttempts: number;
  retryBaseMs: number;
  /** See UploadOptions.retryBudgetMs. */
  retryBudgetMs: number;
  /** See NetworkTimeouts.fileRetryBudgetMs. */
  fileRetryBudgetMs: number;
  /** Per key: time its failed attempts and retry waits took so far in this run. */
  retrySpentMs: Map<string, number>;
}
