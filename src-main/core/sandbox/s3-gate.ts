import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';

import { AwsChunkedDecoder, checks, IntegrityCheck, isAwsChunked } from './aws-chunked.js';
import { type Bucket, BucketRequest } from './bucket.js';
import { keyRefusal, uploadRefusal } from './bucket-policy.js';
import { type DeleteOutcome, deleteResultXml, parseDeleteRequest } from './delete-objects.js';
import {
  type ListedObject,
  type ListRequest,
  listResultXml,
  pageOf,
  parseListRequest,
} from './list-objects.js';
import { S3GateError, sendS3Error } from './s3-errors.js';
import { isSignatureParam, queryPairs, type SigningKeys, uriEncode, verifySigV4 } from './sigv4.js';

/** What the gate guards and what it enforces. */
export interface GateOptions {
  bucket: Bucket;
  keys: SigningKeys;
  /** Wall clock for signature dates (S3 signing uses real time, never the sandbox's test clock). */
  now?: () => number;
}

/** Most bytes a DeleteObjects body may have (S3 allows 1,000 keys). */
const MAX_DELETE_BODY = 2 * 1024 * 1024;

const HOP_HEADERS = new Set([
  'authorization',
  'connection',
  'content-length',
  'content-encoding',
  'expect',
  'host',
  'keep-alive',
  'transfer-encoding',
  'x-amz-content-sha256',
  'x-amz-copy-source',
  'x-amz-decoded-content-length',
  'x-amz-trailer',
]);

/**
 * The bucket's only door: a policy gate, not an S3 implementation. It verifies each request's
 * SigV4 signature against the sandbox's generated keys, applies section 2.6's access table,
 * turns aws-chunked bodies back into plain bytes (checking their checksums), and hands s3rver,
 * in this process, a request rebuilt from what it checked, streaming the body. DeleteObjects it
 * answers itself, from its own reading of the body, and ListObjects from its own walk of the
 * bucket (list-objects.ts says why). This is its request handler; index.ts serves it over HTTP
 * or HTTPS.
 */
export function gateRequestListener(options: GateOptions): RequestListener {
  const settling: Settling = new Map();
  return (req, res) => {
    void handle(options, settling, req, res);
  };
}

/**
 * Keys whose refused upload s3rver may still be writing, each settled once what it wrote is
 * gone. The refusal is answered at once, so a client's very next request (a HEAD, a listing)
 * waits here rather than see the half-written object.
 */
type Settling = Map<string, Promise<void>>;

/** How long a refused upload's file may take to appear after s3rver gave up on it. */
const REFUSED_WRITE_SETTLE_MS = 250;

async function handle(
  options: GateOptions,
  settling: Settling,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const target = req.url ?? '/';
  const mark = target.indexOf('?');
  const rawPath = mark >= 0 ? target.slice(0, mark) : target;
  const rawQuery = mark >= 0 ? target.slice(mark + 1) : '';
  const head = req.method === 'HEAD';
  let resource = rawPath;
  try {
    const segments = rawPath.split('/').slice(1);
    const decoded = segments.map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw new S3GateError('InvalidURI', `Couldn't parse the specified URI '${rawPath}'.`);
      }
    });
    const bucket = decoded[0] ?? '';
    const key = decoded.slice(1).join('/');
    resource = bucket === '' ? '/' : `/${bucket}${key ? `/${key}` : ''}`;
    const verified = verifySigV4(req, rawPath, rawQuery, options.keys, (options.now ?? Date.now)());
    const pairs = queryPairs(rawQuery);
    const params = new Set(pairs.map(([k]) => k));
    const copySource = authorize(options, req, bucket, key, pairs);
    if (key === '') await Promise.all(settling.values());
    else await settling.get(key);

    if ((req.method === 'GET' || head) && bucket !== '' && key === '') {
      const listing = parseListRequest(pairs);
      if (listing) {
        req.resume();
        await listObjects(options.bucket, listing, res, head);
        return;
      }
    }

    const body = requestBody(req, verified.payloadHash);
    if (req.method === 'POST' && key === '' && params.has('delete')) {
      const xml = await readAll(body.stream, MAX_DELETE_BODY);
      await deleteObjects(options.bucket, xml.toString('utf8'), res);
      return;
    }

    const forwardPairs = pairs.filter(([k]) => !isSignatureParam(k) && !k.startsWith('response-'));
    const overrides = Object.fromEntries(
      pairs.filter(([k]) => k.startsWith('response-')).map(([k, v]) => [k.slice(9), v]),
    );
    const forwardQuery = forwardPairs.map(([k, v]) =>
      v === '' ? uriEncode(k) : `${uriEncode(k)}=${uriEncode(v)}`,
    );
    // s3rver is handed the path and copy source the gate checked, spelled one way only.
    const path =
      (bucket === '' ? '/' : `/${uriEncode(bucket)}${key ? `/${encodeKey(key)}` : ''}`) +
      (forwardQuery.length > 0 ? `?${forwardQuery.join('&')}` : '');
    const headers = forwardHeaders(req, body.length);
    if (copySource !== undefined) headers['x-amz-copy-source'] = copySource;
    const request = new BucketRequest(req.method ?? 'GET', path, headers, req.socket, overrides);
    // Once the gate has answered an error, s3rver may never read the body it was handed.
    request.on('error', () => undefined);
    let refused = false;
    let settled: { done: () => void; promise: Promise<void> } | undefined;
    if (req.method === 'PUT' || req.method === 'POST') {
      // As S3 does, a stored object's answer echoes the checksums its request declared (and
      // the gate checked): s3rver knows none of them.
      for (const [name, value] of body.checksums) res.setHeader(`x-amz-checksum-${name}`, value);
      body.stream.on('error', (error) => {
        for (const name of body.checksums.keys()) res.removeHeader(`x-amz-checksum-${name}`);
        // Answer first: s3rver then finds the answer sent and keeps its own 500 to itself.
        refused = true;
        let done = () => {};
        const promise = new Promise<void>((resolve) => (done = resolve));
        settled = { done, promise };
        settling.set(key, promise);
        answerError(res, error, resource, head);
        request.destroy(error);
      });
      body.stream.pipe(request);
    } else {
      request.end();
      req.resume();
    }
    try {
      await options.bucket.serve(request, res);
      if (refused && req.method === 'PUT' && !params.has('uploadId') && copySource === undefined) {
        // s3rver writes in place, even a body destroyed before it read it: drop what it wrote.
        // Its file is opened on the thread pool and may appear only after s3rver gave up, so
        // the sweep waits for that first (the key's next requests wait in `settling`).
        await new Promise((resolve) => setTimeout(resolve, REFUSED_WRITE_SETTLE_MS));
        await options.bucket.delete(key);
      }
    } finally {
      if (settled) {
        if (settling.get(key) === settled.promise) settling.delete(key);
        settled.done();
      }
    }
  } catch (error) {
    answerError(res, error, resource, head);
    req.resume();
  }
}

function answerError(res: ServerResponse, error: unknown, resource: string, head: boolean): void {
  if (error instanceof S3GateError) {
    sendS3Error(res, error, resource, head);
    return;
  }
  process.stderr.write(`sandbox s3 gate: ${String((error as Error)?.stack ?? error)}\n`);
  sendS3Error(
    res,
    new S3GateError('ServiceUnavailable', 'The sandbox bucket failed; retry.'),
    resource,
    head,
  );
}

/** A key as a URL path, each `/`-separated part encoded. */
function encodeKey(key: string): string {
  return key.split('/').map(uriEncode).join('/');
}

/**
 * Applies section 2.6: reads anywhere in the organization's bucket, writes only where allowed.
 * Answers the copy source to forward, spelled the way s3rver reads it (`decodeURI`).
 */
function authorize(
  options: GateOptions,
  req: IncomingMessage,
  bucket: string,
  key: string,
  pairs: [string, string][],
): string | undefined {
  const method = req.method ?? 'GET';
  const read = method === 'GET' || method === 'HEAD';
  if (bucket === '') {
    if (read) return undefined; // ListBuckets shows only this bucket.
    throw new S3GateError('AccessDenied', 'Access Denied');
  }
  if (bucket !== options.bucket.name) {
    throw new S3GateError(
      'AccessDenied',
      `Access Denied: these keys only reach bucket '${options.bucket.name}'.`,
    );
  }
  if (key === '') {
    if (read) return undefined;
    if (method === 'POST' && pairs.some(([k]) => k === 'delete')) return undefined; // keys checked once the body is read
    throw new S3GateError('AccessDenied', 'Access Denied: the bucket configuration is read-only.');
  }
  const refusal = keyRefusal(key, read ? 'read' : 'write') ?? uploadRefusal(pairs);
  if (refusal) throw refusal;
  const copySource = req.headers['x-amz-copy-source'];
  if (typeof copySource !== 'string') return undefined;
  // S3's syntax: `[/]bucket/key[?versionId=…]`, URL-encoded. s3rver keeps no versions.
  const source = decodeSafe(copySource.split('?')[0]!).replace(/^\//, '');
  const slash = source.indexOf('/');
  const sourceKey = source.slice(slash + 1);
  if (slash < 0 || source.slice(0, slash) !== options.bucket.name) {
    throw new S3GateError(
      'AccessDenied',
      `Access Denied: copy source '${copySource}' is outside this bucket.`,
    );
  }
  const sourceRefusal = keyRefusal(sourceKey, 'read');
  if (sourceRefusal) throw sourceRefusal;
  return encodeURI(`${options.bucket.name}/${sourceKey}`);
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3GateError('InvalidArgument', `Cannot decode '${text}'.`);
  }
}

/**
 * DeleteObjects, answered here rather than by s3rver: the gate reads the body once, checks each
 * key with the rule every other door uses, and deletes exactly the keys it let through.
 */
async function deleteObjects(bucket: Bucket, xml: string, res: ServerResponse): Promise<void> {
  const request = parseDeleteRequest(xml);
  const outcomes: DeleteOutcome[] = [];
  for (const { key, versionId } of request.objects) {
    const refusal = keyRefusal(key, 'write');
    if (refusal) {
      outcomes.push({ key, deleted: false, code: refusal.code, message: refusal.message });
    } else if (versionId !== undefined && versionId !== 'null') {
      // The sandbox bucket keeps no versions; only the "null" version exists.
      outcomes.push({
        key,
        deleted: false,
        code: 'NoSuchVersion',
        message: 'The specified version does not exist.',
      });
    } else {
      await bucket.delete(key);
      outcomes.push({ key, deleted: true });
    }
  }
  const body = deleteResultXml(outcomes, request.quiet);
  res.writeHead(200, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** ListObjects V1/V2: one page from the bucket's keys, each object described as it is now. */
async function listObjects(
  bucket: Bucket,
  request: ListRequest,
  res: ServerResponse,
  head: boolean,
): Promise<void> {
  const page = pageOf(request, await bucket.keys(request.prefix));
  const objects: ListedObject[] = [];
  for (const key of page.keys) {
    const described = await bucket.describe(key);
    if (described) objects.push({ key, ...described });
  }
  const body = listResultXml(bucket.name, request, page, objects);
  res.writeHead(200, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
  });
  res.end(head ? undefined : body);
}

/** The request's object bytes: decoded from aws-chunked when needed, checked against its checksums. */
function requestBody(
  req: IncomingMessage,
  payloadHash: string,
): { stream: Readable; length: number | undefined; checksums: Map<string, string> } {
  const checksums = new Map<string, string>();
  for (const [name, value] of Object.entries(req.headers)) {
    if (
      name.startsWith('x-amz-checksum-') &&
      typeof value === 'string' &&
      name !== 'x-amz-checksum-type' &&
      name !== 'x-amz-checksum-algorithm'
    ) {
      checksums.set(name.slice('x-amz-checksum-'.length), value);
    }
  }
  // What the gate checks, and so may echo: not CRC32C or CRC64NVME, which pass unchecked.
  const echoed = new Map([...checksums].filter(([algorithm]) => checks(algorithm)));
  // S3 refuses a body whose Content-MD5 doesn't match (BadDigest); s3rver alone would store it.
  const contentMd5 = req.headers['content-md5'];
  if (typeof contentMd5 === 'string') checksums.set('md5', contentMd5);
  const declared =
    req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (isAwsChunked(payloadHash, req.headers['content-encoding'])) {
    const decodedHeader = req.headers['x-amz-decoded-content-length'];
    const length = decodedHeader === undefined ? undefined : Number(decodedHeader);
    if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
      throw new S3GateError(
        'InvalidArgument',
        'x-amz-decoded-content-length is not a valid length.',
      );
    }
    const decoder = new AwsChunkedDecoder();
    const trailerAlgorithms = String(req.headers['x-amz-trailer'] ?? '')
      .split(',')
      .map((name) =>
        name
          .trim()
          .toLowerCase()
          .replace(/^x-amz-checksum-/, ''),
      )
      .filter(Boolean);
    const check = new IntegrityCheck({
      checksums,
      trailerAlgorithms,
      trailers: () => decoder.trailers,
    });
    const lengthCheck = new PassThrough();
    req.pipe(decoder);
    decoder.on('error', (error) => check.destroy(error));
    decoder.pipe(check);
    if (length !== undefined) {
      check.on('end', () => {
        if (decoder.decodedLength !== length) {
          lengthCheck.destroy(
            new S3GateError(
              'IncompleteBody',
              'You did not provide the number of bytes specified by x-amz-decoded-content-length.',
            ),
          );
        }
      });
    }
    check.on('error', (error) => lengthCheck.destroy(error));
    check.pipe(lengthCheck);
    return { stream: lengthCheck, length, checksums: echoed };
  }
  const sha256Hex = /^[0-9a-f]{64}$/i.test(payloadHash) ? payloadHash : undefined;
  if (!sha256Hex && checksums.size === 0) {
    return { stream: req, length: declared, checksums: echoed };
  }
  const check = new IntegrityCheck({ sha256Hex, checksums });
  req.on('error', (error) => check.destroy(error));
  return { stream: req.pipe(check), length: declared, checksums: echoed };
}

async function readAll(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > max) throw new S3GateError('MaxMessageLengthExceeded', 'Your request was too big.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function forwardHeaders(
  req: IncomingMessage,
  length: number | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    headers[name] = value;
  }
  const encoding = (req.headers['content-encoding'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s.toLowerCase() !== 'aws-chunked');
  if (encoding.length > 0) headers['content-encoding'] = encoding.join(', ');
  const hasBody = req.method === 'PUT' || req.method === 'POST';
  if (hasBody && length !== undefined) headers['content-length'] = String(length);
  else if (hasBody) headers['transfer-encoding'] = 'chunked';
  // An IP address: s3rver reads a bucket name out of any other host (virtual-hosted style).
  headers.host = '127.0.0.1';
  return headers;
}
