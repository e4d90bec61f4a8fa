import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';

import { S3GateError } from './s3-errors.js';

/** True when a request body is aws-chunked (SigV4 streaming, signed or unsigned, with or without trailer). */
export function isAwsChunked(payloadHash: string, contentEncoding: string | undefined): boolean {
  return (
    payloadHash.startsWith('STREAMING-') ||
    /(^|,)\s*aws-chunked\s*(,|$)/i.test(contentEncoding ?? '')
  );
}

const CRLF = Buffer.from('\r\n');
const MAX_LINE = 16 * 1024;

/**
 * Decodes an `aws-chunked` body into the object's bytes, streaming (masters are gigabytes):
 * `<hex size>[;chunk-signature=…]\r\n<data>\r\n … 0…\r\n<trailer lines>\r\n`. Trailer headers
 * (e.g. `x-amz-checksum-crc32`) are collected for the integrity check. Chunk signatures are not
 * verified: the request signature already binds the sender to the sandbox's keys.
 */
export class AwsChunkedDecoder extends Transform {
  /** Trailer headers, lowercase names. */
  readonly trailers = new Map<string, string>();
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' | 'done' = 'size';
  private remaining = 0;
  private line = Buffer.alloc(0);
  decodedLength = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      let i = 0;
      while (i < chunk.length) {
        if (this.state === 'data') {
          const take = Math.min(this.remaining, chunk.length - i);
          this.push(chunk.subarray(i, i + take));
          this.decodedLength += take;
          this.remaining -= take;
          i += take;
          if (this.remaining === 0) this.state = 'data-crlf';
          continue;
        }
        if (this.state === 'done') {
          // Anything after the final empty line is not part of the body.
          break;
        }
        const end = chunk.indexOf(0x0a, i);
        const stop = end < 0 ? chunk.length : end + 1;
        this.line = Buffer.concat([this.line, chunk.subarray(i, stop)]);
        i = stop;
        if (this.line.length > MAX_LINE)
          throw new S3GateError('IncompleteBody', 'An aws-chunked line is too long.');
        if (end < 0) continue;
        const text = this.line
          .subarray(0, this.line.length - (this.line.subarray(-2).equals(CRLF) ? 2 : 1))
          .toString('latin1');
        this.line = Buffer.alloc(0);
        this.onLine(text);
      }
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  private onLine(text: string): void {
    switch (this.state) {
      case 'size': {
        const size = parseInt(text.split(';')[0]!.trim(), 16);
        if (
          !Number.isSafeInteger(size) ||
          size < 0 ||
          !/^[0-9a-f]+$/i.test(text.split(';')[0]!.trim())
        ) {
          throw new S3GateError(
            'IncompleteBody',
            `Bad aws-chunked size line '${text.slice(0, 80)}'.`,
          );
        }
        this.remaining = size;
        this.state = size === 0 ? 'trailer' : 'data';
        return;
      }
      case 'data-crlf':
        if (text !== '')
          throw new S3GateError('IncompleteBody', 'An aws-chunked chunk is longer than its size.');
        this.state = 'size';
        return;
      case 'trailer': {
        if (text === '') {
          this.state = 'done';
          return;
        }
        const colon = text.indexOf(':');
        if (colon > 0)
          this.trailers.set(
            text.slice(0, colon).trim().toLowerCase(),
            text.slice(colon + 1).trim(),
          );
        return;
      }
      default:
        return;
    }
  }

  override _flush(done: TransformCallback): void {
    // Some clients end right after the final chunk's trailer lines without the last CRLF.
    if (this.state !== 'done' && !(this.state === 'trailer')) {
      done(new S3GateError('IncompleteBody', 'The request body terminated unexpectedly.'));
      return;
    }
    done();
  }
}

type Digest = { update(data: Buffer): void; base64(): string; hex(): string };

function digestFor(algorithm: string): Digest | undefined {
  if (algorithm === 'crc32' && typeof (zlib as { crc32?: unknown }).crc32 === 'function') {
    const crc32 = (zlib as unknown as { crc32(data: Buffer, value?: number): number }).crc32;
    let value = 0;
    const bytes = () => {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(value >>> 0);
      return out;
    };
    return {
      update: (data) => (value = crc32(data, value)),
      base64: () => bytes().toString('base64'),
      hex: () => bytes().toString('hex'),
    };
  }
  if (algorithm === 'md5' || algorithm === 'sha1' || algorithm === 'sha256') {
    const hash: Hash = createHash(algorithm);
    let result: Buffer | undefined;
    const final = () => (result ??= hash.digest());
    return {
      update: (data) => hash.update(data),
      base64: () => final().toString('base64'),
      hex: () => final().toString('hex'),
    };
  }
  // CRC32C and CRC64NVME are passed through unchecked (no implementation in Node's standard library).
  return undefined;
}

/** True when the gate checks a body against this algorithm's `x-amz-checksum-*` value. */
export function checks(algorithm: string): boolean {
  return digestFor(algorithm) !== undefined;
}

/** What the object's bytes must hash to, from headers or (for aws-chunked) trailers. */
export interface IntegrityExpectations {
  /** A hex SHA-256 from x-amz-content-sha256, when the payload is signed. */
  sha256Hex?: string;
  /** x-amz-checksum-* headers (name without prefix → base64 value), and `md5` for Content-MD5. */
  checksums: Map<string, string>;
  /** Algorithms the trailers will carry (from x-amz-trailer), hashed as the body passes. */
  trailerAlgorithms?: string[];
  /** Reads trailers once the body has ended. */
  trailers?: () => Map<string, string>;
}

/**
 * Passes the object's bytes through and fails at the end when they do not match the signed
 * SHA-256 or the x-amz-checksum-* value (header or trailer), so corrupted uploads are refused.
 */
export class IntegrityCheck extends Transform {
  private readonly digests = new Map<string, Digest>();
  private readonly sha256 = createHash('sha256');

  constructor(private readonly expect: IntegrityExpectations) {
    super();
    // Only what the request declares is hashed: a master is gigabytes.
    for (const algorithm of [...expect.checksums.keys(), ...(expect.trailerAlgorithms ?? [])]) {
      const digest = digestFor(algorithm);
      if (digest) this.digests.set(algorithm, digest);
    }
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    for (const digest of this.digests.values()) digest.update(chunk);
    if (this.expect.sha256Hex) this.sha256.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (
      this.expect.sha256Hex &&
      this.sha256.digest('hex') !== this.expect.sha256Hex.toLowerCase()
    ) {
      done(
        new S3GateError(
          'XAmzContentSHA256Mismatch',
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
        ),
      );
      return;
    }
    const expected = new Map(this.expect.checksums);
    for (const [name, value] of this.expect.trailers?.() ?? []) {
      if (name.startsWith('x-amz-checksum-'))
        expected.set(name.slice('x-amz-checksum-'.length), value);
    }
    for (const [algorithm, value] of expected) {
      const digest = this.digests.get(algorithm);
      if (digest && digest.base64() !== value) {
        const message =
          algorithm === 'md5'
            ? 'The Content-MD5 you specified did not match what we received.'
            : `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`;
        done(new S3GateError('BadDigest', message));
        return;
      }
    }
    done();
  }
}
