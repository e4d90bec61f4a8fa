import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bucketSigner } from '../../support/s3-signing.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

let sandbox: TestSandbox;
let s3: S3Client;
let Bucket: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  s3 = sandbox.s3();
  Bucket = sandbox.info.bucket.bucket_name;
});
afterAll(async () => {
  await sandbox?.close();
});

/** PUTs a hand-made aws-chunked body with an unsigned trailer, signed by the SDK's signer. */
async function putAwsChunked(key: string, data: Buffer, crc32Base64: string): Promise<Response> {
  const endpoint = new URL(sandbox.info.bucket.endpoint);
  const half = Math.ceil(data.length / 2);
  const body = Buffer.concat([
    Buffer.from(`${half.toString(16)}\r\n`),
    data.subarray(0, half),
    Buffer.from(`\r\n${(data.length - half).toString(16)}\r\n`),
    data.subarray(half),
    Buffer.from(`\r\n0\r\nx-amz-checksum-crc32:${crc32Base64}\r\n\r\n`),
  ]);
  const path = `/${Bucket}/${key}`;
  const headers: Record<string, string> = {
    host: endpoint.host,
    'content-encoding': 'aws-chunked',
    'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    'x-amz-decoded-content-length': String(data.length),
    'x-amz-trailer': 'x-amz-checksum-crc32',
    'content-length': String(body.length),
  };
  const signed = await bucketSigner(sandbox.info).sign({
    method: 'PUT',
    protocol: 'http:',
    hostname: endpoint.hostname,
    port: Number(endpoint.port),
    path,
    query: {},
    headers,
    body,
  });
  // fetch sets Host and Content-Length itself.
  const sent = Object.fromEntries(
    Object.entries(signed.headers).filter(([name]) => name !== 'host' && name !== 'content-length'),
  );
  return fetch(`${endpoint.origin}${path}`, { method: 'PUT', headers: sent, body });
}

function crc32(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE((zlib as unknown as { crc32(d: Buffer): number }).crc32(data) >>> 0);
  return out.toString('base64');
}

/** A presigned URL made by the AWS SDK's own SigV4 signer. */
async function presign(method: string, key: string): Promise<string> {
  const endpoint = new URL(sandbox.info.bucket.endpoint);
  const path = `/${Bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const signed = await bucketSigner(sandbox.info).presign(
    {
      method,
      protocol: 'http:',
      hostname: endpoint.hostname,
      port: Number(endpoint.port),
      path,
      query: {},
      headers: { host: endpoint.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    },
    { expiresIn: 300, unsignableHeaders: new Set() },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${endpoint.origin}${path}?${query}`;
}

async function bytesOf(key: string): Promise<Buffer> {
  const answer = await s3.send(new GetObjectCommand({ Bucket, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

function md5(data: Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

async function errorOf(promise: Promise<unknown>): Promise<{ name: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  throw new Error('expected the request to fail');
}

describe('sandbox bucket', () => {
  it('names the bucket from the prefix, organization id, region and prd, as a valid S3 name', () => {
    const { bucket_name, bucket_region } = sandbox.info.bucket;
    expect(bucket_name).toBe(`caas-${sandbox.info.organization_id}-${bucket_region}-prd`);
    expect(bucket_name).toMatch(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/);
    expect(bucket_name).not.toMatch(/\.\.|^\d+\.\d+\.\d+\.\d+$/);
  });

  it('holds the section 2.6 layout and INFO.json at start', async () => {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket, Delimiter: '/' }));
    const top = [
      ...(listed.CommonPrefixes ?? []).map((p) => p.Prefix),
      ...(listed.Contents ?? []).map((c) => c.Key),
    ];
    expect(top).toEqual(
      expect.arrayContaining([
        'csv_outputs/',
        'delivery/',
        'live_analysis/',
        'logs/',
        'processed/',
        'INFO.json',
      ]),
    );
    const delivery = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: 'delivery/', Delimiter: '/' }),
    );
    expect((delivery.CommonPrefixes ?? []).map((p) => p.Prefix)).toEqual(
      expect.arrayContaining([
        'delivery/audio/',
        'delivery/ddex/',
        'delivery/mapping/',
        'delivery/metadata/',
      ]),
    );
    const info = JSON.parse((await bytesOf('INFO.json')).toString('utf8'));
    expect(info.organization_id).toBe(sandbox.info.organization_id);
  });

  it('stores a PutObject byte for byte with the SDK default checksums (aws-chunked)', async () => {
    const data = randomBytes(300_000);
    await s3.send(
      new PutObjectCommand({
        Bucket,
        Key: 'delivery/audio/put/a.wav',
        Body: Readable.from([data]),
        ContentLength: data.length,
      }),
    );
    await s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/audio/put/b.wav', Body: data }));
    expect(md5(await bytesOf('delivery/audio/put/a.wav'))).toBe(md5(data));
    expect(md5(await bytesOf('delivery/audio/put/b.wav'))).toBe(md5(data));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'delivery/audio/put/a.wav' }));
    expect(head.ContentLength).toBe(data.length);
    expect(head.ContentEncoding ?? '').not.toContain('aws-chunked');
  });

  it('decodes aws-chunked bodies with a trailing checksum and refuses a wrong one', async () => {
    const data = randomBytes(20_000);
    const good = await putAwsChunked('delivery/audio/chunked/good.wav', data, crc32(data));
    expect(good.status, await good.text()).toBe(200);
    expect(md5(await bytesOf('delivery/audio/chunked/good.wav'))).toBe(md5(data));
    const bad = await putAwsChunked(
      'delivery/audio/chunked/bad.wav',
      data,
      crc32(Buffer.from('other')),
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('<Code>BadDigest</Code>');
  });

  it('checks a PutObject against its x-amz-checksum-crc32 header and echoes it, as S3 does', async () => {
    const plain = sandbox.s3({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const data = randomBytes(40_000);
    const Key = 'delivery/audio/crc/a.wav';
    const put = (ChecksumCRC32: string) =>
      plain.send(
        new PutObjectCommand({
          Bucket,
          Key,
          Body: data,
          ChecksumCRC32,
          ChecksumAlgorithm: 'CRC32',
        }),
      );
    await expect(put(crc32(Buffer.from('other')))).rejects.toMatchObject({ name: 'BadDigest' });
    await expect(plain.send(new HeadObjectCommand({ Bucket, Key }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    const stored = await put(crc32(data));
    expect(stored.ChecksumCRC32).toBe(crc32(data));
    expect(md5(await bytesOf(Key))).toBe(md5(data));
  });

  it('leaves no trace of a refused PutObject, even to the HEAD sent the moment it is refused', async () => {
    const plain = sandbox.s3({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const wrongMd5 = createHash('md5').update('x').digest('base64');
    // The refusal is answered before s3rver has let go of what it wrote: each HEAD races it.
    for (let i = 0; i < 12; i++) {
      const Key = `delivery/audio/md5-race/${i}.wav`;
      await expect(
        plain.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: randomBytes(i % 2 ? 30_000 : 200_000),
            ContentMD5: wrongMd5,
          }),
        ),
      ).rejects.toMatchObject({ name: 'BadDigest' });
      await expect(plain.send(new HeadObjectCommand({ Bucket, Key }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 404 },
      });
    }
  });

  it('refuses a PutObject or UploadPart whose Content-MD5 does not match, as S3 does', async () => {
    const plain = sandbox.s3({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const data = randomBytes(30_000);
    const md5Of = (b: Buffer): string => createHash('md5').update(b).digest('base64');
    const Key = 'delivery/audio/md5/a.wav';
    await expect(
      plain.send(
        new PutObjectCommand({ Bucket, Key, Body: data, ContentMD5: md5Of(Buffer.from('x')) }),
      ),
    ).rejects.toMatchObject({ name: 'BadDigest' });
    await expect(plain.send(new HeadObjectCommand({ Bucket, Key }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    await plain.send(new PutObjectCommand({ Bucket, Key, Body: data, ContentMD5: md5Of(data) }));
    expect(md5(await bytesOf(Key))).toBe(md5(data));

    const { UploadId } = await plain.send(
      new CreateMultipartUploadCommand({ Bucket, Key: 'delivery/audio/md5/b.wav' }),
    );
    await expect(
      plain.send(
        new UploadPartCommand({
          Bucket,
          Key: 'delivery/audio/md5/b.wav',
          UploadId,
          PartNumber: 1,
          Body: data,
          ContentMD5: md5Of(Buffer.from('x')),
        }),
      ),
    ).rejects.toMatchObject({ name: 'BadDigest' });
  });

  it('stores a PutObject with checksums only when required', async () => {
    const plain = sandbox.s3({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const data = randomBytes(70_000);
    await plain.send(
      new PutObjectCommand({ Bucket, Key: 'delivery/metadata/tracks.csv', Body: data }),
    );
    expect(md5(await bytesOf('delivery/metadata/tracks.csv'))).toBe(md5(data));
  });

  it('completes a multipart upload into a byte-identical object', async () => {
    const Key = 'delivery/audio/multi/master.wav';
    const parts = [randomBytes(5 * 1024 * 1024), randomBytes(5 * 1024 * 1024), randomBytes(1234)];
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'audio/wav' }),
    );
    const done = [];
    for (const [index, body] of parts.entries()) {
      const answer = await s3.send(
        new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: index + 1, Body: body }),
      );
      done.push({ PartNumber: index + 1, ETag: answer.ETag });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    const whole = Buffer.concat(parts);
    expect(md5(await bytesOf(Key))).toBe(md5(whole));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key }));
    expect(head.ContentLength).toBe(whole.length);
    expect(head.ContentType).toBe('audio/wav');
  });

  it('copies and deletes inside the writable area', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/ddex/one.xml', Body: '<a/>' }));
    await s3.send(
      new CopyObjectCommand({
        Bucket,
        Key: 'delivery/ddex/two.xml',
        CopySource: `${Bucket}/delivery/ddex/one.xml`,
      }),
    );
    expect((await bytesOf('delivery/ddex/two.xml')).toString()).toBe('<a/>');
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'delivery/ddex/two.xml' }));
    expect(
      (await errorOf(s3.send(new HeadObjectCommand({ Bucket, Key: 'delivery/ddex/two.xml' }))))
        .status,
    ).toBe(404);
    await s3.send(
      new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: 'delivery/ddex/one.xml' }] } }),
    );
    expect(
      (await errorOf(s3.send(new HeadObjectCommand({ Bucket, Key: 'delivery/ddex/one.xml' }))))
        .status,
    ).toBe(404);
  });

  it.each([
    'INFO.json',
    'csv_outputs/x.csv',
    'delivery/x.wav',
    'processed/audio/x.wav',
    'logs/x',
    'live_analysis/x',
    'delivery/audio/',
  ])('answers AccessDenied to a write at %s', async (Key) => {
    const error = await errorOf(s3.send(new PutObjectCommand({ Bucket, Key, Body: 'x' })));
    expect(error).toEqual({ name: 'AccessDenied', status: 403 });
  });

  it('refuses deleting a read-only object and copying into one with AccessDenied', async () => {
    expect(
      (await errorOf(s3.send(new DeleteObjectCommand({ Bucket, Key: 'INFO.json' })))).name,
    ).toBe('AccessDenied');
    expect(
      (
        await errorOf(
          s3.send(
            new CopyObjectCommand({
              Bucket,
              Key: 'processed/x',
              CopySource: `${Bucket}/INFO.json`,
            }),
          ),
        )
      ).name,
    ).toBe('AccessDenied');
    // As S3 does, DeleteObjects succeeds as a request and refuses each key it may not delete.
    const many = await s3.send(
      new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: 'INFO.json' }] } }),
    );
    expect(many.Errors).toEqual([
      expect.objectContaining({ Key: 'INFO.json', Code: 'AccessDenied' }),
    ]);
    expect(many.Deleted ?? []).toEqual([]);
    expect((await bytesOf('INFO.json')).length).toBeGreaterThan(0);
  });

  it('refuses wrong keys', async () => {
    const wrongSecret = sandbox.s3({
      credentials: {
        accessKeyId: sandbox.info.bucket.access_key_id,
        secretAccessKey: 'not-the-secret',
      },
    });
    expect((await errorOf(wrongSecret.send(new ListObjectsV2Command({ Bucket })))).name).toBe(
      'SignatureDoesNotMatch',
    );
    const wrongKey = sandbox.s3({
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    expect((await errorOf(wrongKey.send(new ListObjectsV2Command({ Bucket })))).name).toBe(
      'InvalidAccessKeyId',
    );
    const anonymous = await fetch(`${sandbox.info.bucket.endpoint}/${Bucket}/INFO.json`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('accepts presigned URLs for reads and writes, and refuses tampered ones', async () => {
    const put = await presign('PUT', 'delivery/mapping/m.yaml');
    const putAnswer = await fetch(put, { method: 'PUT', body: 'mapping: []' });
    expect(putAnswer.status, await putAnswer.text()).toBe(200);
    const get = await presign('GET', 'delivery/mapping/m.yaml');
    const answer = await fetch(get);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('mapping: []');
    const tampered = get.replace('m.yaml', 'n.yaml');
    expect((await fetch(tampered)).status).toBe(403);
    const denied = await presign('PUT', 'INFO.json');
    expect((await fetch(denied, { method: 'PUT', body: '{}' })).status).toBe(403);
  });

  it('refuses keys with dot segments', async () => {
    const error = await errorOf(
      s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/audio/../../INFO.json', Body: 'x' })),
    );
    expect(error.status).toBeGreaterThanOrEqual(400);
    expect(error.status).toBeLessThan(500);
  });

  it('refuses keys it cannot store with KeyTooLongError, not a 500 to retry', async () => {
    const long = `delivery/audio/Long/${'n'.repeat(240)}.wav`;
    expect(await errorOf(s3.send(new PutObjectCommand({ Bucket, Key: long, Body: 'x' })))).toEqual({
      name: 'KeyTooLongError',
      status: 400,
    });
    const over = `delivery/audio/${Array.from({ length: 6 }, () => 'd'.repeat(200)).join('/')}.wav`;
    expect(await errorOf(s3.send(new PutObjectCommand({ Bucket, Key: over, Body: 'x' })))).toEqual({
      name: 'KeyTooLongError',
      status: 400,
    });
    expect((await errorOf(s3.send(new HeadObjectCommand({ Bucket, Key: long })))).status).toBe(404);
  });
});
