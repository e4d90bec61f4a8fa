import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { S3Client } from '@aws-sdk/client-s3';

import {
  type SandboxInfo,
  type SandboxOptions,
  startSandbox,
} from '../../src-main/core/sandbox/index.js';
import type { S3Target } from '../../src-main/core/storage/s3-client.js';

/** A parsed API answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers check the JSON they get
export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** The delivery bucket of a sandbox as the uploader's target (what a connection would give). */
export function bucketTarget(bucket: SandboxInfo['bucket']): S3Target {
  return {
    endpoint: bucket.endpoint,
    region: bucket.bucket_region,
    bucket: bucket.bucket_name,
    accessKeyId: bucket.access_key_id,
    secretAccessKey: bucket.secret_access_key,
  };
}

/** A sandbox started for a test, in its own temp data directory. */
export interface TestSandbox {
  info: SandboxInfo;
  dataDir: string;
  /** A fresh access token for the sandbox's client. */
  token(): Promise<string>;
  /** Calls the API with a bearer token (fetched once and reused), parsing JSON answers. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers check the JSON they get
  api<T = any>(
    path: string,
    init?: RequestInit & { json?: unknown; auth?: boolean },
  ): Promise<ApiAnswer<T>>;
  /** An S3 client for the delivery bucket with the sandbox's keys (path-style, as required). */
  s3(overrides?: Partial<ConstructorParameters<typeof S3Client>[0]>): S3Client;
  /** Stops the sandbox and keeps its data, to start another on the same directory. */
  stop(): Promise<void>;
  /** Stops the sandbox and deletes its data directory. */
  close(): Promise<void>;
}

/** Starts a sandbox in a temp directory (or `dataDir`), with fast processing timings by default. */
export async function startTestSandbox(
  options: Partial<SandboxOptions> = {},
): Promise<TestSandbox> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'courier-sandbox-')));
  const running = await startSandbox({
    timings: { analysisMs: 100, productIntervalMs: 300 },
    ...options,
    dataDir,
  });
  const { info } = running;
  let cached: string | undefined;
  const token = async () => {
    const res = await fetch(`${info.base_url}/oauth/access_tokens/client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: info.client_id, client_secret: info.client_secret }),
    });
    const body = (await res.json()) as { data?: { token?: string } };
    if (res.status !== 201 || !body.data?.token)
      throw new Error(`token request failed: ${res.status}`);
    return body.data.token;
  };
  const clients: S3Client[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const client of clients) client.destroy();
    await running.close();
  };
  return {
    info,
    dataDir,
    token,
    async api(path, init = {}) {
      const { json, auth = true, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (auth && !headers.has('authorization'))
        headers.set('authorization', `Bearer ${(cached ??= await token())}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      const res = await fetch(`${info.base_url}${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ApiAnswer
      return { status: res.status, headers: res.headers, body: body as any };
    },
    s3(overrides = {}) {
      const client = new S3Client({
        endpoint: info.bucket.endpoint,
        region: info.bucket.bucket_region,
        forcePathStyle: true,
        credentials: {
          accessKeyId: info.bucket.access_key_id,
          secretAccessKey: info.bucket.secret_access_key,
        },
        ...overrides,
      });
      clients.push(client);
      return client;
    },
    stop,
    async close() {
      await stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
