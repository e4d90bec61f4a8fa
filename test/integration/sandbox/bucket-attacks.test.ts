import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { signedFetch } from '../../support/s3-signing.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

// What an attack run found in the sandbox bucket (issue #17): each test replays one attack.

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

async function exists(Key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket, Key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
      return false;
    throw error;
  }
}

async function text(Key: string): Promise<string> {
  const answer = await s3.send(new GetObjectCommand({ Bucket, Key }));
  return answer.Body!.transformToString();
}

async function errorOf(
  promise: Promise<unknown>,
): Promise<{ name: string; status?: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error('expected the request to fail');
}

/** A DeleteObjects request with exactly this body, hand-signed (an SDK would rewrite it). */
async function deleteObjects(xml: string): Promise<{ status: number; body: string }> {
  const answer = await signedFetch(sandbox.info, {
    method: 'POST',
    path: `/${Bucket}`,
    query: { delete: '' },
    headers: {
      'content-type': 'application/xml',
      'content-md5': createHash('md5').update(xml).digest('base64'),
    },
    body: xml,
  });
  return { status: answer.status, body: await answer.text() };
}

/** XML text as the characters it stands for. */
function unescape(xml: string): string {
  return xml
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The `<Error>` entries of a DeleteResult, as `key → code`. */
function refusedKeys(body: string): Record<string, string> {
  return Object.fromEntries(
    [...body.matchAll(/<Error><Key>([^<]*)<\/Key><Code>([^<]*)<\/Code>/g)].map((m) => [
      unescape(m[1]!),
      m[2]!,
    ]),
  );
}

function deletedKeys(body: string): string[] {
  return [...body.matchAll(/<Deleted><Key>([^<]*)<\/Key><\/Deleted>/g)].map((m) => unescape(m[1]!));
}

describe('DeleteObjects', () => {
  it.each([
    ['a space inside the tag', '<Key >INFO.json</Key >', 'INFO.json'],
    ['a line break inside the tag', '<Key\n>INFO.json</Key\n>', 'INFO.json'],
    ['an entity-encoded character', '<Key>&#x49;NFO.json</Key>', 'INFO.json'],
    ['a CDATA section', '<Key><![CDATA[csv_outputs/]]></Key>', 'csv_outputs/'],
    ['a comment inside the key', '<Key>processed/<!-- x -->audio/</Key>', 'processed/audio/'],
  ])('keeps a read-only object whose key is written with %s', async (_, keyXml, key) => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object>${keyXml}</Object></Delete>`;
    const answer = await deleteObjects(xml);
    expect(answer.status, answer.body).toBe(200);
    expect(refusedKeys(answer.body)).toEqual({ [key]: 'AccessDenied' });
    expect(deletedKeys(answer.body)).toEqual([]);
    expect(await exists(key)).toBe(true);
  });

  it('deletes the writable keys of a request and refuses the read-only ones, each by name', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/ddex/a.xml', Body: '<a/>' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/ddex/b & c.xml', Body: '<b/>' }));
    const answer = await deleteObjects(
      '<Delete><Object><Key>delivery/ddex/a.xml</Key></Object>' +
        '<Object><Key >INFO.json</Key></Object>' +
        '<Object><Key>delivery/ddex/b &amp; c.xml</Key></Object>' +
        '<Object><Key>INFO.json</Key></Object></Delete>',
    );
    expect(answer.status, answer.body).toBe(200);
    expect(deletedKeys(answer.body)).toEqual(['delivery/ddex/a.xml', 'delivery/ddex/b & c.xml']);
    expect(refusedKeys(answer.body)).toEqual({ 'INFO.json': 'AccessDenied' });
    expect(await exists('delivery/ddex/a.xml')).toBe(false);
    expect(await exists('delivery/ddex/b & c.xml')).toBe(false);
    expect(await exists('INFO.json')).toBe(true);
  });

  it('lists only the refused keys in quiet mode', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/ddex/q.xml', Body: '<q/>' }));
    const answer = await deleteObjects(
      '<Delete><Quiet>true</Quiet><Object><Key>delivery/ddex/q.xml</Key></Object>' +
        '<Object><Key>INFO.json</Key></Object></Delete>',
    );
    expect(answer.status, answer.body).toBe(200);
    expect(deletedKeys(answer.body)).toEqual([]);
    expect(refusedKeys(answer.body)).toEqual({ 'INFO.json': 'AccessDenied' });
    expect(await exists('delivery/ddex/q.xml')).toBe(false);
  });

  it.each([
    [
      'namespace prefixes',
      '<s3:Delete xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><s3:Object><s3:Key>INFO.json</s3:Key></s3:Object></s3:Delete>',
    ],
    [
      'a document type with an entity',
      '<!DOCTYPE Delete [<!ENTITY k "INFO.json">]><Delete><Object><Key>&k;</Key></Object></Delete>',
    ],
    [
      'two keys in one object',
      '<Delete><Object><Key>delivery/ddex/x</Key><Key>INFO.json</Key></Object></Delete>',
    ],
    [
      'a second root element',
      '<Delete><Object><Key>delivery/ddex/x</Key></Object></Delete><Delete><Object><Key>INFO.json</Key></Object></Delete>',
    ],
    ['an element inside the key', '<Delete><Object><Key>INFO<b/>.json</Key></Object></Delete>'],
    ['no object at all', '<Delete><Quiet>true</Quiet></Delete>'],
    [
      'more than 1,000 keys',
      `<Delete>${'<Object><Key>delivery/ddex/x</Key></Object>'.repeat(1000)}<Object><Key>INFO.json</Key></Object></Delete>`,
    ],
  ])('refuses a body with %s as MalformedXML, deleting nothing', async (_, xml) => {
    const answer = await deleteObjects(xml);
    expect(answer.status, answer.body).toBe(400);
    expect(answer.body).toContain('<Code>MalformedXML</Code>');
    expect(await exists('INFO.json')).toBe(true);
  });
});

/** The TCP ports this process listens on (Linux: its sockets in /proc/net/tcp*). */
function listeningPorts(): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed while listing
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // state 0A is LISTEN; field 9 is the socket's inode.
      if (fields[3] === '0A' && inodes.has(fields[9]!)) {
        ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
      }
    }
  }
  return ports;
}

describe('the bucket behind the gate', () => {
  it.skipIf(!existsSync('/proc/self/fd'))(
    'is reachable only through the signed gate: no other port takes an unsigned write',
    async () => {
      const before = listeningPorts();
      const fresh = await startTestSandbox();
      try {
        const opened = [...listeningPorts()].filter((port) => !before.has(port));
        const api = Number(new URL(fresh.info.base_url).port);
        const gate = Number(new URL(fresh.info.bucket.endpoint).port);
        const name = fresh.info.bucket.bucket_name;
        // What any local process, or a web page's plain HTML form, can send without the keys.
        for (const port of opened.filter((p) => p !== api)) {
          const form = new FormData();
          form.set('key', 'delivery/audio/form.wav');
          form.set('file', new Blob(['from a web page']), 'form.wav');
          await fetch(`http://127.0.0.1:${port}/${name}`, { method: 'POST', body: form });
          await fetch(`http://127.0.0.1:${port}/${name}/INFO.json`, {
            method: 'PUT',
            body: 'overwritten',
          });
        }
        const client = fresh.s3();
        const stored = await client.send(new GetObjectCommand({ Bucket: name, Key: 'INFO.json' }));
        expect(await stored.Body!.transformToString()).not.toBe('overwritten');
        await expect(
          client.send(new HeadObjectCommand({ Bucket: name, Key: 'delivery/audio/form.wav' })),
        ).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
        expect(opened.sort()).toEqual([api, gate].sort());
      } finally {
        await fresh.close();
      }
    },
  );
});

describe('keys the bucket cannot store safely on disk', () => {
  it.each([
    ['a backslash', 'delivery/audio/x\\..\\..\\INFO.json', 'backslash'],
    ['a NUL byte', 'delivery/audio/a\u0000b.wav', 'control character'],
    ['a control character', 'delivery/audio/a\u0007b.wav', 'control character'],
    ['a folder ending in a dot', 'delivery/audio/Greatest Hits.../01.wav', 'ends with'],
    ['a folder ending in a space', 'delivery/audio/Album /01.wav', 'ends with'],
    ['a device name', 'delivery/audio/CON/01.wav', 'device'],
    ['a device name with an extension', 'delivery/audio/x/nul.wav', 'device'],
    ['a numbered device name', 'delivery/audio/x/Com1.txt', 'device'],
    ['an empty part', 'delivery/audio/x//01.wav', 'empty'],
    ["s3rver's own file suffix", 'delivery/audio/a._S3rver_object/01.wav', 's3rver'],
  ])('refuses a key with %s as InvalidArgument, naming the key', async (_, Key, why) => {
    const error = await errorOf(s3.send(new PutObjectCommand({ Bucket, Key, Body: 'x' })));
    expect(error).toMatchObject({ name: 'InvalidArgument', status: 400 });
    expect(error.message).toContain(why);
    expect(error.message).toContain('delivery/audio/');
  });

  it('refuses a backslash key through every door', async () => {
    const Key = 'delivery/audio/x\\..\\..\\INFO.json';
    const refusal = { name: 'InvalidArgument', status: 400 };
    const signed = await signedFetch(sandbox.info, {
      method: 'PUT',
      path: `/${Bucket}/delivery/audio/x%5C..%5C..%5CINFO.json`,
      body: 'x',
    });
    expect(signed.status).toBe(400);
    expect(await signed.text()).toContain('<Code>InvalidArgument</Code>');
    expect(await errorOf(s3.send(new CreateMultipartUploadCommand({ Bucket, Key })))).toMatchObject(
      refusal,
    );
    expect(await errorOf(s3.send(new GetObjectCommand({ Bucket, Key })))).toMatchObject(refusal);
    expect((await errorOf(s3.send(new HeadObjectCommand({ Bucket, Key })))).status).toBe(400);
    expect(await errorOf(s3.send(new DeleteObjectCommand({ Bucket, Key })))).toMatchObject(refusal);
    expect(
      await errorOf(
        s3.send(
          new CopyObjectCommand({
            Bucket,
            Key: 'delivery/audio/copy.wav',
            CopySource: `${Bucket}/${encodeURIComponent(Key)}`,
          }),
        ),
      ),
    ).toMatchObject(refusal);
    const answer = await deleteObjects(`<Delete><Object><Key>${Key}</Key></Object></Delete>`);
    expect(answer.status, answer.body).toBe(200);
    expect(refusedKeys(answer.body)).toEqual({ [Key]: 'InvalidArgument' });
    expect(await exists('INFO.json')).toBe(true);
  });

  it('answers NoSuchUpload to an upload id or part number that names a path', async () => {
    const escaped = join(sandbox.dataDir, 'escaped');
    const part = await signedFetch(sandbox.info, {
      method: 'PUT',
      path: `/${Bucket}/delivery/audio/part.wav`,
      query: { partNumber: '1', uploadId: '../../../escaped' },
      body: 'outside the bucket',
    });
    expect(part.status).toBe(404);
    expect(await part.text()).toContain('<Code>NoSuchUpload</Code>');
    expect(existsSync(escaped)).toBe(false);

    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket, Key: 'delivery/audio/part.wav' }),
    );
    const number = await signedFetch(sandbox.info, {
      method: 'PUT',
      path: `/${Bucket}/delivery/audio/part.wav`,
      query: { partNumber: '../../../../escaped', uploadId: UploadId! },
      body: 'outside the bucket',
    });
    expect(number.status).toBe(400);
    expect(await number.text()).toContain('<Code>InvalidArgument</Code>');
    expect(existsSync(escaped)).toBe(false);
  });

  it('copies from the source it checked, not from what follows a "?"', async () => {
    // A file outside the bucket folder, shaped like one of s3rver's objects.
    const outside = join(sandbox.dataDir, 'outside');
    await writeFile(`${outside}._S3rver_object`, 'outside the bucket');
    await writeFile(`${outside}._S3rver_metadata.json`, '{}');
    await writeFile(`${outside}._S3rver_object.md5`, 'x');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'delivery/audio/a', Body: 'inside' }));
    await s3
      .send(
        new CopyObjectCommand({
          Bucket,
          Key: 'delivery/audio/copied',
          CopySource: `${Bucket}/delivery/audio/a?/../../../../../outside`,
        }),
      )
      .catch(() => undefined);
    expect(await exists('delivery/audio/copied')).toBe(true);
    expect(await text('delivery/audio/copied')).toBe('inside');
  });
});
