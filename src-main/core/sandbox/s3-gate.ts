import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { AwsChunkedDecoder, IntegrityCheck, isAwsChunked } from './aws-chunked.js';
import { isUnsafeKey, isWritableKey, keyTooLong } from './bucket-policy.js';
import { S3GateError, sendS3Error } from './s3-errors.js';
import { isSignatureParam, queryPairs, type SigningKeys, uriEncode, verifySigV4 } from './sigv4.js';

/** Where the gate forwards and what it enforces. */
export interface GateOptions {
  bucketName: string;
  keys: SigningKeys;
  upstreamPort: number;
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
  'x-amz-decoded-content-length',
  'x-amz-trailer',
]);

/**
 * The bucket's public port: a policy gate, not an S3 implementation. It verifies each request's
 * SigV4 signature against the sandbox's generated keys, applies section 2.6's access table,
 * turns aws-chunked bodies back into plain bytes (checking their checksums), and forwards the
 * request, streaming, to s3rver on its internal port.
 */
export function createS3Gate(options: GateOptions): Server {
  return createServer((req, res) => {
    void handle(options, req, res);
  });
}

async function handle(
  options: GateOptions,
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
    authorize(options, req, bucket, key, params);

    const forwardPairs = pairs.filter(([k]) => !isSignatureParam(k) && !k.startsWith('response-'));
    const overrides = pairs.filter(([k]) => k.startsWith('response-'));
    const forwardQuery = forwardPairs.map(([k, v]) =>
      v === '' ? uriEncode(k) : `${uriEncode(k)}=${uriEncode(v)}`,
    );
    const path = rawPath + (forwardQuery.length > 0 ? `?${forwardQuery.join('&')}` : '');

    const body = requestBody(req, verified.payloadHash);
    let payload: Readable = body.stream;
    let length = body.length;
    if (req.method === 'POST' && key === '' && params.has('delete')) {
      const buffered = await readAll(payload, MAX_DELETE_BODY);
      checkDeleteKeys(buffered.toString('utf8'));
      const pass = new PassThrough();
      pass.end(buffered);
      payload = pass;
      length = buffered.length;
    }
    await forward(options, req, res, path, payload, length, overrides);
  } catch (error) {
    if (error instanceof S3GateError) {
      sendS3Error(res, error, resource, head);
    } else {
      process.stderr.write(`sandbox s3 gate: ${String((error as Error)?.stack ?? error)}\n`);
      sendS3Error(
        res,
        new S3GateError('ServiceUnavailable', 'The sandbox bucket failed; retry.'),
        resource,
        head,
      );
    }
    req.resume();
  }
}

/** Applies section 2.6: reads anywhere in the organization's bucket, writes only where allowed. */
function authorize(
  options: GateOptions,
  req: IncomingMessage,
  bucket: string,
  key: string,
  params: Set<string>,
): void {
  const method = req.method ?? 'GET';
  const read = method === 'GET' || method === 'HEAD';
  if (bucket === '') {
    if (read) return; // ListBuckets shows only this bucket.
    throw new S3GateError('AccessDenied', 'Access Denied');
  }
  if (bucket !== options.bucketName) {
    throw new S3GateError(
      'AccessDenied',
      `Access Denied: these keys only reach bucket '${options.bucketName}'.`,
    );
  }
  if (isUnsafeKey(key))
    throw new S3GateError('InvalidArgument', "Object keys must not contain '.' or '..' segments.");
  const tooLong = keyTooLong(key);
  if (tooLong) {
    // Such an object can't exist: reads find nothing, writes are refused as S3 does.
    if (read) throw new S3GateError('NoSuchKey', 'The specified key does not exist.');
    throw new S3GateError('KeyTooLongError', tooLong);
  }
  if (key === '') {
    if (read) return;
    if (method === 'POST' && params.has('delete')) return; // keys checked once the body is read
    throw new S3GateError('AccessDenied', 'Access Denied: the bucket configuration is read-only.');
  }
  if (!read && !isWritableKey(key)) {
    throw new S3GateError(
      'AccessDenied',
      `Access Denied: '${key}' is read-only; write under delivery/audio/, delivery/ddex/, delivery/mapping/ or delivery/metadata/.`,
    );
  }
  const copySource = req.headers['x-amz-copy-source'];
  if (typeof copySource === 'string') {
    const source = decodeSafe(copySource.split('?')[0]!).replace(/^\//, '');
    const slash = source.indexOf('/');
    if (source.slice(0, slash) !== options.bucketName || isUnsafeKey(source.slice(slash + 1))) {
      throw new S3GateError(
        'AccessDenied',
        `Access Denied: copy source '${copySource}' is outside this bucket.`,
      );
    }
  }
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3GateError('InvalidArgument', `Cannot decode '${text}'.`);
  }
}

function checkDeleteKeys(xml: string): void {
  const keys = [...xml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((m) =>
    m[1]!
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&'),
  );
  const denied = keys.filter((key) => !isWritableKey(key) || isUnsafeKey(key));
  if (denied.length > 0)
    throw new S3GateError('AccessDenied', `Access Denied: cannot delete ${denied.join(', ')}.`);
}

/** The request's object bytes: decoded from aws-chunked when needed, checked against its checksums. */
function requestBody(
  req: IncomingMessage,
  payloadHash: string,
): { stream: Readable; length: number | undefined } {
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
    return { stream: lengthCheck, length };
  }
  const sha256Hex = /^[0-9a-f]{64}$/i.test(payloadHash) ? payloadHash : undefined;
  if (!sha256Hex && checksums.size === 0) return { stream: req, length: declared };
  const check = new IntegrityCheck({ sha256Hex, checksums });
  req.on('error', (error) => check.destroy(error));
  return { stream: req.pipe(check), length: declared };
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
  if (length !== undefined) headers['content-length'] = String(length);
  else if (hasBody) headers['transfer-encoding'] = 'chunked';
  return headers;
}

async function forward(
  options: GateOptions,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: Readable,
  length: number | undefined,
  overrides: [string, string][],
): Promise<void> {
  const hasBody = req.method === 'PUT' || req.method === 'POST';
  await new Promise<void>((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: options.upstreamPort,
        method: req.method,
        path,
        headers: {
          ...forwardHeaders(req, hasBody ? length : undefined),
          host: `127.0.0.1:${options.upstreamPort}`,
        },
      },
      (answer) => {
        const headers = { ...answer.headers };
        for (const [name, value] of overrides) headers[name.slice('response-'.length)] = value;
        delete headers.connection;
        delete headers['keep-alive'];
        res.writeHead(answer.statusCode ?? 502, headers);
        pipeline(answer, res).then(resolve, (error: unknown) => {
          res.destroy();
          resolve(void error);
        });
      },
    );
    upstream.on('error', (error) => reject(error));
    if (!hasBody) {
      upstream.end();
      req.resume();
      return;
    }
    body.on('error', (error) => {
      upstream.destroy();
      reject(error);
    });
    body.pipe(upstream);
  });
}
