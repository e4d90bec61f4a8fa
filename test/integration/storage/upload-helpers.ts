import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { GetObjectCommand } from '@aws-sdk/client-s3';

import type { S3Target } from '../../../src-main/core/storage/s3-client.js';
import { adminClient } from '../../support/s3-peers.js';

/** Part-size floor used by the integration tests (moto is started to accept it). */
export const TEST_PART = 256 * 1024;

/** Writes random files of the given sizes under a fresh temp dir; returns dir and paths. */
export async function makeTree(
  files: Record<string, number>,
): Promise<{ dir: string; paths: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'courier-up-src-'));
  const paths: Record<string, string> = {};
  for (const [rel, size] of Object.entries(files)) {
    const path = join(dir, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, randomBytes(size));
    paths[rel] = path;
  }
  return { dir, paths };
}

/** A fresh data directory (what COURIER_HOME points at in tests). */
export function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'courier-up-home-'));
}

/** sha256 of a local file. */
export async function sha256File(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** sha256 of an object as GetObject returns it. */
export async function sha256Object(target: S3Target, key: string): Promise<string> {
  const response = await adminClient(target).send(
    new GetObjectCommand({ Bucket: target.bucket, Key: key }),
  );
  const bytes = await response.Body!.transformToByteArray();
  return createHash('sha256').update(bytes).digest('hex');
}
