/**
 * "Test connection": each part of a profile checked on its own — the token, the tag listing,
 * listing the delivery area and writing (then deleting) a probe object — each with a clear
 * cause and a hint when it fails.
 */
import { randomUUID } from 'node:crypto';

import {
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

import { ApiError } from './api/api-error.js';
import type { Connection } from './connection.js';
import { NetworkError, UnreachableError } from './network/reachability.js';
import { createS3Client } from './storage/s3-client.js';

/** Beyond this, S3 starts refusing signatures (its limit is 15 minutes). */
const CLOCK_SKEW_LIMIT_MS = 5 * 60_000;

class ClockSkewError extends Error {
  constructor(readonly skewMs: number) {
    super(
      `This machine's clock is ${Math.round(Math.abs(skewMs) / 60_000)} minutes ${skewMs > 0 ? 'behind' : 'ahead of'} the service's.`,
    );
  }
}

export type CheckId = 'token' | 'tags' | 'bucket_list' | 'bucket_write';

export interface CheckResult {
  id: CheckId;
  label: string;
  ok: boolean;
  /** What was found, or what went wrong. */
  detail: string;
  /** What the user can do about a failure. */
  hint?: string;
  ms: number;
}

export interface ConnectionReport {
  profile: string;
  ok: boolean;
  checks: CheckResult[];
}

/** Runs every check of a connection, each reported whatever the others did. */
export async function testConnection(connection: Connection): Promise<ConnectionReport> {
  const s3 = createS3Client(connection.bucket, { idleTimeoutMs: 15_000 });
  const checks: CheckResult[] = [];
  const run = async (id: CheckId, label: string, check: () => Promise<string>) => {
    const started = performance.now();
    try {
      const detail = await check();
      checks.push({ id, label, ok: true, detail, ms: Math.round(performance.now() - started) });
    } catch (error) {
      const { detail, hint } = explain(error, connection);
      checks.push({
        id,
        label,
        ok: false,
        detail,
        hint,
        ms: Math.round(performance.now() - started),
      });
    }
  };
  try {
    await run('token', 'Access token', async () => {
      const { clockSkewMs } = await connection.api.verifyCredentials();
      const authenticated = `Client ${connection.profile.client_id} authenticated.`;
      if (clockSkewMs === undefined || Math.abs(clockSkewMs) < CLOCK_SKEW_LIMIT_MS) {
        return authenticated;
      }
      // S3 refuses requests signed more than 15 minutes off: say so before uploads fail.
      throw new ClockSkewError(clockSkewMs);
    });
    await run('tags', 'Tag lexicology', async () => {
      const page = await connection.api.listTags({ limit: 1 });
      return `${page.total_size} tags available.`;
    });
    await run('bucket_list', 'Bucket: list delivery/', () => listDelivery(s3, connection));
    await run('bucket_write', 'Bucket: write to delivery/metadata/', () =>
      writeProbe(s3, connection),
    );
  } finally {
    s3.destroy();
  }
  return { profile: connection.profile.name, ok: checks.every((c) => c.ok), checks };
}

async function listDelivery(s3: S3Client, connection: Connection): Promise<string> {
  const answer = await s3.send(
    new ListObjectsV2Command({
      Bucket: connection.bucket.bucket,
      Prefix: 'delivery/',
      Delimiter: '/',
      MaxKeys: 50,
    }),
  );
  const folders = (answer.CommonPrefixes ?? []).map((p) => p.Prefix).filter(Boolean);
  return `Bucket ${connection.bucket.bucket} reachable; delivery/ has ${folders.length} folder(s).`;
}

async function writeProbe(s3: S3Client, connection: Connection): Promise<string> {
  const key = `delivery/metadata/.courier-probe-${randomUUID()}`;
  await s3.send(
    new PutObjectCommand({
      Bucket: connection.bucket.bucket,
      Key: key,
      Body: 'Courier connection test; safe to delete.',
    }),
  );
  await s3.send(new DeleteObjectCommand({ Bucket: connection.bucket.bucket, Key: key }));
  return 'Wrote and deleted a probe object.';
}

interface Explanation {
  detail: string;
  hint?: string;
}

/** Turns an API or S3 failure into its cause and what to do about it. */
export function explain(error: unknown, connection: Connection): Explanation {
  if (error instanceof ClockSkewError) {
    return {
      detail: error.message,
      hint: 'Set the system clock (enable automatic time), then retry.',
    };
  }
  if (error instanceof ApiError) {
    const hints: Record<string, string> = {
      bad_credentials: 'Check the client_id and the client secret of this profile.',
      network: `Check base_url (${connection.profile.base_url}) and this machine's network.`,
      unreachable: `Check base_url (${connection.profile.base_url}) and this machine's network.`,
      timeout: 'The service did not answer in time: retry, or check the network.',
      unauthorized: 'The service refused a fresh token: check the client in the portal.',
      not_found: `Check base_url (${connection.profile.base_url}): the endpoint was not found.`,
    };
    return { detail: error.message, hint: hints[error.code] };
  }
  if (error instanceof NetworkError || error instanceof UnreachableError) {
    const reason = error instanceof NetworkError ? ` (${error.reason})` : '';
    return {
      detail: `Could not reach the bucket endpoint at ${error.host}${reason}.`,
      hint: `Check the S3 endpoint (${connection.bucket.endpoint ?? 'AWS'}) and this machine's network.`,
    };
  }
  const e = (error ?? {}) as {
    name?: string;
    Code?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const name = e.Code ?? e.name ?? '';
  const bucket = connection.bucket;
  const s3Hints: Record<string, Explanation> = {
    InvalidAccessKeyId: {
      detail: `The bucket does not know access key id ${bucket.accessKeyId}.`,
      hint: 'Check the access key id of this profile.',
    },
    SignatureDoesNotMatch: {
      detail: 'The bucket refused the request signature.',
      hint: 'Check the secret access key of this profile.',
    },
    AuthorizationHeaderMalformed: {
      detail: `The bucket is not in region ${bucket.region}.`,
      hint: 'Check the bucket region of this profile.',
    },
    PermanentRedirect: {
      detail: `The bucket is not in region ${bucket.region}.`,
      hint: 'Check the bucket region of this profile.',
    },
    RequestTimeTooSkewed: {
      detail: "This machine's clock differs too much from the bucket's.",
      hint: 'Set the system clock (enable automatic time), then retry.',
    },
    NoSuchBucket: {
      detail: `There is no bucket named ${bucket.bucket}.`,
      hint: 'Check the bucket name of this profile.',
    },
    AccessDenied: {
      detail: 'The bucket refused access with these keys.',
      hint: 'The keys need read access to the bucket and write access to delivery/.',
    },
  };
  if (s3Hints[name]) return s3Hints[name];
  const network = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH/.exec(
    `${e.code ?? ''} ${e.message ?? ''}`,
  );
  if (network) {
    return {
      detail: `Could not reach the bucket endpoint (${network[0]}).`,
      hint: `Check the S3 endpoint (${bucket.endpoint ?? 'AWS'}) and this machine's network.`,
    };
  }
  const status = e.$metadata?.httpStatusCode;
  return {
    detail: `${name || 'Error'}${status ? ` (${status})` : ''}: ${e.message ?? String(error)}`,
  };
}
