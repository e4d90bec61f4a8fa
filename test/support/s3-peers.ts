import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// @ts-expect-error s3rver ships no types
import S3rver from '@20minutes/s3rver';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

import type { S3Target } from '../../src-main/core/storage/s3-client.js';

/** A local S3-protocol server started for tests, with a bucket ready to use. */
export interface S3Peer {
  name: 'moto' | 's3rver';
  target: S3Target;
  /** What the server lacks that the uploader must cope with. */
  supportsListParts: boolean;
  /** Every key in the test bucket. */
  listKeys(): Promise<string[]>;
  stop(): Promise<void>;
}

/** The test bucket's name (moto refuses names under three characters). */
export const TEST_BUCKET = 'courier-delivery-test';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Why moto_server can't run here, or undefined when it can. */
export function motoUnavailable(): string | undefined {
  try {
    execFileSync('moto_server', ['--help'], { stdio: 'ignore', timeout: 30_000 });
    return undefined;
  } catch (error) {
    return `moto_server is not runnable (${(error as Error).message.split('\n')[0]}); install it with \`pip install 'moto[server]'\``;
  }
}

/**
 * Starts `moto_server` on a free port with a bucket. Its part-size minimum is lowered (an env
 * setting moto reads) so tests can use small parts.
 */
export async function startMoto(options: { minPartSize?: number } = {}): Promise<S3Peer> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: 'ignore',
    env: {
      ...process.env,
      S3_UPLOAD_PART_MIN_SIZE: String(options.minPartSize ?? 5 * 1024 * 1024),
    },
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`${endpoint}/moto-api/`);
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`moto_server did not start on ${endpoint}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const target: S3Target = {
    endpoint,
    region: 'us-east-1',
    bucket: TEST_BUCKET,
    accessKeyId: 'moto-key',
    secretAccessKey: 'moto-secret',
  };
  await adminClient(target).send(new CreateBucketCommand({ Bucket: TEST_BUCKET }));
  return {
    name: 'moto',
    target,
    supportsListParts: true,
    listKeys: () => listKeys(target),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    },
  };
}

/** Starts an in-process s3rver (data in a temp dir) with a bucket; it lacks ListParts and Abort. */
export async function startS3rver(): Promise<S3Peer> {
  const directory = await mkdtemp(join(tmpdir(), 'courier-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: TEST_BUCKET, configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  return {
    name: 's3rver',
    target: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      bucket: TEST_BUCKET,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
    supportsListParts: false,
    // s3rver rejects the SDK's signature on bucket-level requests (listings); ask its store.
    listKeys: async () => {
      const { objects } = (await server.store.listObjects(TEST_BUCKET, {})) as {
        objects: Array<{ key: string }>;
      };
      return objects.map((o) => o.key);
    },
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A plain SDK client for a target, for assertions (listing, GetObject) outside the uploader. */
export function adminClient(target: S3Target): S3Client {
  const client = new S3Client({
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: true,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return client;
}

/** Every key in a bucket, listed with the SDK. */
export async function listKeys(target: S3Target): Promise<string[]> {
  const client = adminClient(target);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: target.bucket, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) keys.push(o.Key!);
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/**
 * The peers to run integration tests against. A missing moto_server skips its tier with the
 * reason printed; under `CI=true` it is an error instead.
 */
export function peerFactories(): Array<{
  name: S3Peer['name'];
  start: () => Promise<S3Peer>;
  skip?: string;
}> {
  const motoReason = motoUnavailable();
  if (motoReason && process.env.CI === 'true')
    throw new Error(`CI needs moto_server: ${motoReason}`);
  if (motoReason) process.stderr.write(`skipping the moto_server tier: ${motoReason}\n`);
  return [
    { name: 'moto', start: () => startMoto({ minPartSize: 64 * 1024 }), skip: motoReason },
    { name: 's3rver', start: startS3rver },
  ];
}
