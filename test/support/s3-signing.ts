import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { type IncomingMessage, request as httpRequest } from 'node:http';

import { SignatureV4 } from '@smithy/signature-v4';

import type { SandboxInfo } from '../../src-main/core/sandbox/index.js';

/** SHA-256 for the AWS signer, on node:crypto (the presigner package is not a dependency). */
export class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key =
      typeof this.secret === 'string'
        ? this.secret
        : ArrayBuffer.isView(this.secret)
          ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength)
          : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(
      typeof data === 'string'
        ? data
        : ArrayBuffer.isView(data)
          ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
          : Buffer.from(data),
    );
  }
  reset(): void {
    this.hash = this.fresh();
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

/** The AWS SDK's own SigV4 signer, with the sandbox bucket's keys and region. */
export function bucketSigner(info: SandboxInfo): SignatureV4 {
  return new SignatureV4({
    service: 's3',
    region: info.bucket.bucket_region,
    credentials: {
      accessKeyId: info.bucket.access_key_id,
      secretAccessKey: info.bucket.secret_access_key,
    },
    sha256: Sha256,
    uriEscapePath: false,
  });
}

/**
 * Sends a request to the sandbox bucket exactly as written (path, query and body untouched),
 * signed with the bucket's keys: for what an SDK would tidy away before sending. It goes out on
 * node:http, not fetch, whose URL parser would resolve `.`, `..` and `%2e` segments and turn `\`
 * into `/` before the gate ever saw them.
 */
export async function signedFetch(
  info: SandboxInfo,
  request: {
    method: string;
    /** Already URI-encoded, starting with `/<bucket>`. */
    path: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: Buffer | string;
    /** Send no Authorization header (what a web page's plain form post carries). */
    unsigned?: boolean;
  },
): Promise<Response> {
  const endpoint = new URL(info.bucket.endpoint);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string> = {
    host: endpoint.host,
    'x-amz-content-sha256': createHash('sha256')
      .update(body ?? Buffer.alloc(0))
      .digest('hex'),
    ...request.headers,
  };
  const signed = request.unsigned
    ? { headers }
    : await bucketSigner(info).sign({
        method: request.method,
        protocol: 'http:',
        hostname: endpoint.hostname,
        port: Number(endpoint.port),
        path: request.path,
        query: request.query ?? {},
        headers,
        body,
      });
  const query = Object.entries(request.query ?? {})
    .map(([k, v]) =>
      v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`,
    )
    .join('&');
  const answer = await new Promise<IncomingMessage>((resolve, reject) => {
    const sent = httpRequest(
      {
        host: endpoint.hostname,
        port: Number(endpoint.port),
        method: request.method,
        path: `${request.path}${query ? `?${query}` : ''}`,
        headers: { ...signed.headers, 'content-length': String(body?.length ?? 0) },
      },
      resolve,
    );
    sent.on('error', reject);
    sent.end(body);
  });
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  const status = answer.statusCode ?? 0;
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      answerHeaders.append(name, one);
    }
  }
  const noBody = status === 204 || status === 304 || request.method === 'HEAD';
  return new Response(noBody ? null : Buffer.concat(chunks), { status, headers: answerHeaders });
}
