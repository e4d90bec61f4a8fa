import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { S3GateError } from './s3-errors.js';

/** The keys and region requests must be signed with. */
export interface SigningKeys {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** A request whose signature checked out. */
export interface VerifiedRequest {
  presigned: boolean;
  /** The x-amz-content-sha256 the signature covers: a hex hash, UNSIGNED-PAYLOAD or STREAMING-…. */
  payloadHash: string;
}

const MAX_SKEW_MS = 15 * 60 * 1000;
const PRESIGN_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
];

/** S3's URI encoding (RFC 3986 unreserved characters stay as they are). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The query of a raw request target as decoded pairs, in order. */
export function queryPairs(rawQuery: string): [string, string][] {
  return rawQuery
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? [decode(part), ''] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))];
    });
}

function canonicalQuery(pairs: [string, string][]): string {
  return pairs
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValues(req: IncomingMessage, name: string): string {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === name)
      values.push(req.rawHeaders[i + 1]!.trim().replace(/\s+/g, ' '));
  }
  return values.join(',');
}

function hmac(key: Buffer | string, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

function parseAmzDate(text: string | undefined): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  if (!m) return NaN;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

interface Parsed {
  accessKeyId: string;
  scopeDate: string;
  region: string;
  service: string;
  terminator: string;
  signedHeaders: string[];
  signature: string;
  amzDate: string;
}

function parseCredential(
  credential: string,
  malformed: string,
): Omit<Parsed, 'signedHeaders' | 'signature' | 'amzDate'> {
  const parts = credential.split('/');
  if (parts.length !== 5)
    throw new S3GateError(malformed, `The credential '${credential}' is malformed.`);
  const [accessKeyId, scopeDate, region, service, terminator] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { accessKeyId, scopeDate, region, service, terminator };
}

/**
 * Verifies an AWS Signature Version 4 request against the sandbox's keys, in the header form
 * and the presigned-URL form. Unsigned requests, unknown keys and wrong signatures are refused
 * with the S3 error codes SDKs know.
 */
export function verifySigV4(
  req: IncomingMessage,
  rawPath: string,
  rawQuery: string,
  keys: SigningKeys,
  now = Date.now(),
): VerifiedRequest {
  const pairs = queryPairs(rawQuery);
  const query = new Map(pairs);
  const authorization = req.headers.authorization;
  const presigned = query.has('X-Amz-Algorithm') || query.has('X-Amz-Signature');
  let parsed: Parsed;
  let payloadHash: string;
  if (authorization && presigned) {
    throw new S3GateError(
      'InvalidArgument',
      'Only one auth mechanism allowed: the Authorization header or a presigned URL.',
    );
  }
  if (authorization) {
    const match = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(authorization.trim());
    if (!match) {
      const error = authorization.startsWith('AWS ')
        ? 'Signature Version 2 is not supported; use SigV4.'
        : 'Unsupported Authorization type.';
      throw new S3GateError('InvalidArgument', error);
    }
    const fields = new Map(
      match[1]!.split(',').map((part) => {
        const eq = part.indexOf('=');
        return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as [string, string];
      }),
    );
    const credential = fields.get('Credential');
    const signedHeaders = fields.get('SignedHeaders');
    const signature = fields.get('Signature');
    if (!credential || !signedHeaders || !signature) {
      throw new S3GateError(
        'AuthorizationHeaderMalformed',
        'The Authorization header needs Credential, SignedHeaders and Signature.',
      );
    }
    const amzDate = req.headers['x-amz-date'];
    if (typeof amzDate !== 'string') {
      throw new S3GateError(
        'AccessDenied',
        'AWS authentication requires a valid x-amz-date header.',
      );
    }
    const contentHash = req.headers['x-amz-content-sha256'];
    if (typeof contentHash !== 'string') {
      throw new S3GateError(
        'InvalidRequest',
        'Missing required header for this request: x-amz-content-sha256.',
      );
    }
    payloadHash = contentHash;
    parsed = {
      ...parseCredential(credential, 'AuthorizationHeaderMalformed'),
      signedHeaders: signedHeaders.split(';'),
      signature,
      amzDate,
    };
    const time = parseAmzDate(amzDate);
    if (Number.isNaN(time))
      throw new S3GateError(
        'AccessDenied',
        'AWS authentication requires a valid x-amz-date header.',
      );
    if (Math.abs(now - time) > MAX_SKEW_MS) {
      throw new S3GateError(
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
      );
    }
  } else if (presigned) {
    const missing = PRESIGN_PARAMS.slice(0, 6).filter((name) => !query.has(name));
    if (missing.length > 0 || query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      throw new S3GateError(
        'AuthorizationQueryParametersError',
        `A presigned URL needs X-Amz-Algorithm=AWS4-HMAC-SHA256 and ${missing.join(', ') || 'valid parameters'}.`,
      );
    }
    const amzDate = query.get('X-Amz-Date')!;
    const time = parseAmzDate(amzDate);
    const expires = Number(query.get('X-Amz-Expires'));
    if (Number.isNaN(time) || !Number.isInteger(expires) || expires < 1 || expires > 604800) {
      throw new S3GateError(
        'AuthorizationQueryParametersError',
        'X-Amz-Date or X-Amz-Expires is invalid.',
      );
    }
    if (now > time + expires * 1000) throw new S3GateError('AccessDenied', 'Request has expired.');
    if (time - now > MAX_SKEW_MS)
      throw new S3GateError('AccessDenied', 'Request is not valid yet.');
    parsed = {
      ...parseCredential(query.get('X-Amz-Credential')!, 'AuthorizationQueryParametersError'),
      signedHeaders: query.get('X-Amz-SignedHeaders')!.split(';'),
      signature: query.get('X-Amz-Signature')!,
      amzDate,
    };
    payloadHash = query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  } else {
    throw new S3GateError(
      'AccessDenied',
      'Anonymous access is not allowed; sign requests with the bucket keys.',
    );
  }

  if (parsed.accessKeyId !== keys.accessKeyId) {
    throw new S3GateError(
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    );
  }
  if (
    parsed.service !== 's3' ||
    parsed.terminator !== 'aws4_request' ||
    parsed.scopeDate !== parsed.amzDate.slice(0, 8)
  ) {
    throw new S3GateError(
      'AuthorizationHeaderMalformed',
      'The credential scope is malformed (date/region/s3/aws4_request).',
    );
  }
  if (parsed.region !== keys.region) {
    throw new S3GateError(
      'AuthorizationHeaderMalformed',
      `The region '${parsed.region}' is wrong; expecting '${keys.region}'.`,
    );
  }
  if (!parsed.signedHeaders.includes('host')) {
    throw new S3GateError('AccessDenied', 'The host header must be signed.');
  }

  const canonicalHeaders = parsed.signedHeaders
    .map((name) => `${name}:${headerValues(req, name)}\n`)
    .join('');
  const queryString = canonicalQuery(
    pairs.filter(([k]) => !(presigned && k === 'X-Amz-Signature')),
  );
  const scope = `${parsed.scopeDate}/${parsed.region}/s3/aws4_request`;
  let signingKey = hmac(`AWS4${keys.secretAccessKey}`, parsed.scopeDate);
  signingKey = hmac(signingKey, parsed.region);
  signingKey = hmac(signingKey, 's3');
  signingKey = hmac(signingKey, 'aws4_request');
  // Clients differ in how they escape keys; accept the path as sent or in S3's canonical form.
  const reencoded = rawPath
    .split('/')
    .map((segment) => uriEncode(decode(segment)))
    .join('/');
  for (const uri of new Set([rawPath, reencoded])) {
    const canonicalRequest = [
      req.method,
      uri,
      queryString,
      canonicalHeaders,
      parsed.signedHeaders.join(';'),
      payloadHash,
    ].join('\n');
    const stringToSign = [
      'AWS4-HMAC-SHA256',
      parsed.amzDate,
      scope,
      createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
    ].join('\n');
    const expected = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest();
    const given = Buffer.from(parsed.signature, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected))
      return { presigned, payloadHash };
  }
  throw new S3GateError(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );
}

/** Query parameters that belong to the signature, not to the operation. */
export function isSignatureParam(name: string): boolean {
  return PRESIGN_PARAMS.includes(name) || name === 'X-Amz-Content-Sha256';
}
