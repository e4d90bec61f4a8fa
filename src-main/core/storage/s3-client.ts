import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

import { S3Client } from '@aws-sdk/client-s3';

import { NetworkError, networkReason, Reachability } from '../network/reachability.js';
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

/**
 * Builds the S3 client for a target. The SDK's own retries are off (`maxAttempts: 1`): the
 * uploader retries with its own backoff and budget, and every attempt is signed afresh just
 * before it is sent. Checksums are sent only where required; the uploader adds Content-MD5 per
 * part itself, because s3rver can't read the SDK's default aws-chunked trailer checksums.
 */
export function createS3Client(target: S3Target, options: S3ClientOptions = {}): S3Client {
  const maxSockets = options.maxSockets ?? 32;
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
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // With `Expect: 100-continue` the Node handler opens a fresh, non-keep-alive connection for
    // every part (an extra handshake and round trip each); parts are retried whole anyway.
    expectContinueHeader: false,
    // Handler options as a plain object: the SDK builds its Node handler from them.
    requestHandler: {
      httpAgent: new Agent({ keepAlive: true, maxSockets }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
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
        const result = await next(args);
        reach.answered();
        return result;
      } catch (error) {
        const e = (error ?? {}) as SdkError;
        if (e.$metadata?.httpStatusCode !== undefined || e.$response !== undefined) {
          reach.answered();
          plainServiceError(e);
          throw error;
        }
        // Local failures (a file that vanished mid-PUT) and aborts are not the network's.
        if (classifyFailure(error) !== 'retry' || error instanceof NetworkError) throw error;
        throw new NetworkError('bucket', host, networkReason(error, timeouts), { cause: error });
      }
    },
    { step: 'initialize', name: 'courierReachability', priority: 'high' },
  );
  // Parts carry a signed Content-MD5 that the server verifies; hashing the body a second time
  // (SHA-256 for the signature) would cost main-thread CPU for no extra integrity.
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers?.['content-md5'])
        request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'courierUnsignedPayload' },
  );
  return client;
}
