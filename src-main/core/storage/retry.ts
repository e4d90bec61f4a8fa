import { CourierError } from '../errors.js';

/** How a failed request should be handled. */
export type FailureKind = 'retry' | 'slow-down' | 'no-such-upload' | 'fatal';

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const RETRYABLE_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'InternalError',
  'ServiceUnavailable',
  'BadDigest',
  'IncompleteBody',
  'XAmzContentSHA256Mismatch',
  'OperationAborted',
  'NetworkingError',
]);

interface ErrorLike {
  name?: string;
  code?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

/** Sorts an error thrown by an S3 call into what the uploader should do about it. */
export function classifyFailure(error: unknown): FailureKind {
  // Our own errors say it themselves: a request without answer is retried, nothing else is
  // (an unreachable host, a key the bucket can never take).
  if (error instanceof CourierError) return error.code === 'network' ? 'retry' : 'fatal';
  const e = (error ?? {}) as ErrorLike;
  const name = e.Code ?? e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  if (name === 'AbortError') return 'fatal';
  if (name === 'NoSuchUpload') return 'no-such-upload';
  if (name === 'SlowDown' || status === 503 || status === 429 || name === 'TooManyRequests')
    return 'slow-down';
  if (RETRYABLE_NAMES.has(name)) return 'retry';
  if (status !== undefined && (status >= 500 || status === 408)) return 'retry';
  if (e.code && RETRYABLE_CODES.has(e.code)) return 'retry';
  if (
    status === undefined &&
    /socket hang up|ECONNRESET|EPIPE|timed? ?out/i.test(e.message ?? '')
  ) {
    return 'retry';
  }
  if (e.cause && e.cause !== error) return classifyFailure(e.cause) === 'retry' ? 'retry' : 'fatal';
  return 'fatal';
}

/** Exponential backoff with full jitter: a random delay in [0, min(cap, base·2^attempt)). */
export function backoffDelay(
  attempt: number,
  baseMs = 200,
  capMs = 20_000,
  random = Math.random,
): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
