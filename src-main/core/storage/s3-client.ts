import { S3Client } from '@aws-sdk/client-s3';

import { redactor } from '../log.js';
import {
  CertificateError,
  certificateProblem,
  NetworkError,
  networkReason,
  ProxyRefusedError,
  proxyStatusReason,
  Reachability,
} from '../network/reachability.js';
import { reasonOnRoute, routedAgents } from '../network/routes.js';
import { type NetworkTimeouts, resolveTimeouts } from '../network/timeouts.js';
import { classifyFailure } from './retry.js';

// The SDK warns in every process that its 2027 releases will need Node 22; Courier pins the SDK
// and supports Node 20, so the warning would only be noise on stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Where and as whom to reach a delivery bucket. Secrets stay in memory; never log this. */
export interface S3Target {
  /** Custom S3-protocol endpoint (sandbox, MinIO, moto); unset for AWS itself. */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style addressing; defaults to true whenever `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Network time limits for this target (defaults: DEFAULT_TIMEOUTS). */
  timeouts?: Partial<NetworkTimeouts>;
}

/** Network options of the client. */
export interface S3ClientOptions {
  /** Sockets to keep per host; at least the upload concurrency. */
  maxSockets?: number;
  /** A request whose socket sees no traffic this long is abandoned (and retried by our retry). */
  idleTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

const silent = (): void => undefined;
const silentLogger = { trace: silent, debug: silent, info: silent, warn: silent, error: silent };

/**
 * Waits for `sent`, but while the host has never answered, only until it would be declared
 * unreachable: an idle timeout alone would let a blackholed address hold the first request past
 * that bound. The request left behind ends at its own idle timeout.
 */
async function untilDeadline<T>(sent: Promise<T>, reach: Reachability, windowMs: number) {
  const deadline = reach.deadline();
  if (deadline === undefined) return sent;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new NetworkError(reach.kind, reach.host, `no answer within ${windowMs / 1000} s`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  sent.catch(() => undefined);
  try {
    return await Promise.race([sent, expired]);
  } finally {
    clearTimeout(timer);
  }
}

const reachabilities = new WeakMap<S3Client, Reachability>();

/** Whether the client's host has answered yet (undefined for a client not made here). */
export function reachabilityOf(client: S3Client): Reachability | undefined {
  return reachabilities.get(client);
}

/** The `host[:port]` a target's requests go to, for messages. */
export function hostOf(target: S3Target): string {
  if (target.endpoint) {
    try {
      return new URL(target.endpoint).host;
    } catch {
      return target.endpoint;
    }
  }
  return `s3.${target.region}.amazonaws.com`;
}

interface SdkError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: unknown;
}

/**
 * The SDK's error for an answer it couldn't parse carries a hint meant for developers ("to see
 * the raw response, inspect the hidden field…"); a user only needs the status and code.
 */
function plainServiceError(error: SdkError): void {
  if (typeof error.message === 'string' && /Deserialization error/i.test(error.message)) {
    const status = error.$metadata?.httpStatusCode;
    error.message = `the bucket answered ${status ?? 'an unreadable error'}${
      error.name && error.name !== 'Error' && !/^\d+$/.test(error.name) ? ` (${error.name})` : ''
    }`;
  }
}

/** A header that makes the server check the body: Content-MD5 or a flexible checksum's value. */
const checksummed = (name: string): boolean => {
  const lower = name.toLowerCase();
  return (
    lower === 'content-md5' ||
    (lower.startsWith('x-amz-checksum-') &&
      lower !== 'x-amz-checksum-type' &&
      lower !== 'x-amz-checksum-algorithm')
  );
};

/**
 * Builds the S3 client for a target. The SDK's own retries are off (`maxAttempts: 1`): the
 * uploader retries with its own backoff and budget, and every attempt is signed afresh just
 * before it is sent. Checksums are sent only where required; the uploader adds Content-MD5 per
 * part itself, because s3rver can't read the SDK's default aws-chunked trailer checksums.
 */
export function createS3Client(target: S3Target, options: S3ClientOptions = {}): S3Client {
  const maxSockets = options.maxSockets ?? 32;
  redactor.add(target.secretAccessKey);
  const timeouts = resolveTimeouts(target.timeouts, {
    idleMs: options.idleTimeoutMs,
    connectMs: options.connectionTimeoutMs,
  });
  const client = new S3Client({
    region: target.region,
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    forcePathStyle: target.forcePathStyle ?? Boolean(target.endpoint),
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    maxAttempts: 1,
    // The SDK prints warnings with console.warn unless given a logger ("An error was encountered
    // in a non-retryable streaming request"): Courier reports failures itself, in one line.
    logger: silentLogger,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // With `Expect: 100-continue` the Node handler opens a fresh, non-keep-alive connection for
    // every part (an extra handshake and round trip each); parts are retried whole anyway.
    expectContinueHeader: false,
    // Handler options as a plain object: the SDK builds its Node handler from them.
    requestHandler: {
      // Keep-alive agents that route each connection as the proxy settings say (routes.ts).
      ...routedAgents(maxSockets),
      // An idle-socket timeout, not a whole-request one: a 64 MiB part on a slow uplink may take
      // minutes, but a socket with no progress for this long is stalled and gets retried.
      socketTimeout: timeouts.idleMs,
      connectionTimeout: timeouts.connectMs,
    },
  });
  // Every command passes here: a request that got no answer at all becomes one NetworkError
  // naming the host, and a host declared unreachable fails every request at once.
  const host = hostOf(target);
  const reach = new Reachability('bucket', host, timeouts.unreachableMs);
  reachabilities.set(client, reach);
  client.middlewareStack.add(
    (next) => async (args) => {
      if (reach.unreachable) throw reach.unreachable;
      reach.attempting();
      try {
        // A request with a body may legitimately take long before its answer (a part on a slow
        // uplink): only requests without one are held to the first-answer deadline.
        const hasBody = (args.input as { Body?: unknown }).Body !== undefined;
        const sent = next(args);
        const result = hasBody
          ? await sent
          : await untilDeadline(sent, reach, timeouts.unreachableMs);
        reach.answered();
        return result;
      } catch (error) {
        const e = (error ?? {}) as SdkError;
        const status = e.$metadata?.httpStatusCode;
        if (status === 407) {
          // The proxy answered, not the bucket: it wants credentials.
          throw new ProxyRefusedError('bucket', host, proxyStatusReason(407), { cause: error });
        }
        if (status !== undefined || e.$response !== undefined) {
          reach.answered();
          plainServiceError(e);
          throw error;
        }
        const certificate = certificateProblem(error);
        if (certificate) throw new CertificateError('bucket', host, certificate, { cause: error });
        // Local failures (a file that vanished mid-PUT) and aborts are not the network's.
        if (classifyFailure(error) !== 'retry' || error instanceof NetworkError) throw error;
        const reason = reasonOnRoute(host, networkReason(error, timeouts));
        throw new NetworkError('bucket', host, reason, { cause: error });
      }
    },
    { step: 'initialize', name: 'courierReachability', priority: 'high' },
  );
  // Bodies carry a signed Content-MD5 or x-amz-checksum-* that the server verifies; hashing the
  // body a second time (SHA-256 for the signature) would cost main-thread CPU for no extra
  // integrity.
  client.middlewareStack.add(
    (next) => async (args) => {
      const headers = (args.request as { headers?: Record<string, string> }).headers;
      if (headers && Object.keys(headers).some(checksummed)) {
        headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      }
      return next(args);
    },
    { step: 'build', name: 'courierUnsignedPayload' },
  );
  return client;
}
