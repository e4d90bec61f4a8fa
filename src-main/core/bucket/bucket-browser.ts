/**
 * Browsing the organization's delivery bucket (service-interface §2.6): list a prefix as folders
 * and objects, read small text objects (INFO.json, CSV exports), download, and delete — only
 * under the areas the interface says are read-write.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';

import { CourierError } from '../errors.js';
import { AUDIO_ROOT } from '../storage/object-key.js';

/** What the interface states about an area of the bucket. */
export type BucketAccess = 'read-write' | 'read-only' | 'not stated';

/** The §2.6 table, most specific first. */
const AREAS: Array<{ prefix: string; access: BucketAccess }> = [
  { prefix: 'delivery/audio/', access: 'read-write' },
  { prefix: 'delivery/ddex/', access: 'read-write' },
  { prefix: 'delivery/mapping/', access: 'read-write' },
  { prefix: 'delivery/metadata/', access: 'read-write' },
  { prefix: 'delivery/', access: 'read-only' },
  { prefix: 'csv_outputs/', access: 'read-only' },
];

/** The access of a key or prefix, from the §2.6 table. */
export function accessOf(key: string): BucketAccess {
  if (key === 'INFO.json') return 'read-only';
  // A folder like `delivery/audio/` itself is the writable root; `delivery/` is read-only.
  const area = AREAS.find((a) => key.startsWith(a.prefix));
  return area?.access ?? 'not stated';
}

/** Whether Courier may delete this key: an object strictly inside a read-write area. */
export function isDeletable(key: string): boolean {
  return (
    accessOf(key) === 'read-write' &&
    !key.endsWith('/') &&
    AREAS.every((a) => a.prefix !== key) &&
    !key.split('/').some((s) => s === '..' || s === '.')
  );
}

export interface BucketFolder {
  prefix: string;
  access: BucketAccess;
}

export interface BucketObject {
  key: string;
  size: number;
  lastModified: string;
  access: BucketAccess;
}

export interface BucketListing {
  prefix: string;
  access: BucketAccess;
  folders: BucketFolder[];
  objects: BucketObject[];
  /** True when the listing stopped at `maxKeys`. */
  truncated: boolean;
}

/** Lists one level of the bucket under `prefix` (`''` for the root). */
export async function listBucket(
  s3: S3Client,
  bucket: string,
  prefix: string,
  maxKeys = 5_000,
): Promise<BucketListing> {
  if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
  const folders: BucketFolder[] = [];
  const objects: BucketObject[] = [];
  let token: string | undefined;
  let truncated = false;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        Delimiter: '/',
        ContinuationToken: token,
      }),
    );
    for (const p of page.CommonPrefixes ?? []) {
      if (p.Prefix) folders.push({ prefix: p.Prefix, access: accessOf(p.Prefix) });
    }
    for (const o of page.Contents ?? []) {
      if (!o.Key || o.Key === prefix) continue;
      objects.push({
        key: o.Key,
        size: o.Size ?? 0,
        lastModified: o.LastModified?.toISOString() ?? '',
        access: accessOf(o.Key),
      });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
    if (token && folders.length + objects.length >= maxKeys) {
      truncated = true;
      token = undefined;
    }
  } while (token);
  return { prefix, access: accessOf(prefix), folders, objects, truncated };
}

/** Reads an object's bytes, refusing objects larger than `maxBytes`. */
export async function readObject(
  s3: S3Client,
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; size: number; truncated: boolean }> {
  const answer = await s3.send(
    new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=0-${maxBytes - 1}` }),
  );
  const bytes = await answer.Body!.transformToByteArray();
  const total = Number(/\/(\d+)$/.exec(answer.ContentRange ?? '')?.[1] ?? bytes.length);
  return { bytes, size: total, truncated: total > bytes.length };
}

/** Deletes one object under a read-write area; anything else is refused before any request. */
export async function deleteObject(s3: S3Client, bucket: string, key: string): Promise<void> {
  if (!isDeletable(key)) {
    throw new CourierError(
      'read_only',
      `${key} is not in a writable delivery area (delivery/audio, ddex, mapping, metadata); Courier does not delete it.`,
    );
  }
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}

/** The folders under delivery/audio/ that already hold files (another delivery's). */
export async function audioFoldersInBucket(s3: S3Client, bucket: string): Promise<string[]> {
  const listing = await listBucket(s3, bucket, AUDIO_ROOT);
  return listing.folders.map((f) => f.prefix.slice(AUDIO_ROOT.length).replace(/\/$/, ''));
}
