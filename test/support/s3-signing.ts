import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

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
 * signed with the bucket's keys: for what an SDK would tidy away before sending.
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
  },
): Promise<Response> {
  const endpoint = new URL(info.bucket.endpoint);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const signed = await bucketSigner(info).sign({
    method: request.method,
    protocol: 'http:',
    hostname: endpoint.hostname,
    port: Number(endpoint.port),
    path: request.path,
    query: request.query ?? {},
    headers: {
      host: endpoint.host,
      'x-amz-content-sha256': createHash('sha256')
        .update(body ?? Buffer.alloc(0))
        .digest('hex'),
      ...request.headers,
    },
    body,
  });
  const query = Object.entries(request.query ?? {})
    .map(([k, v]) =>
      v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`,
    )
    .join('&');
  // fetch sets Host and Content-Length itself.
  const sent = Object.fromEntries(
    Object.entries(signed.headers).filter(([name]) => name !== 'host' && name !== 'content-length'),
  );
  return fetch(`${endpoint.origin}${request.path}${query ? `?${query}` : ''}`, {
    method: request.method,
    headers: sent,
    body,
  });
}
