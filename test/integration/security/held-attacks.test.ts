/**
 * The security suite's attacks that held when an attack run was made against the browser host
 * and the sandbox (#17), kept here so none can regress: the socket's token and Origin, DNS
 * rebinding, path traversal on the static server, forged access tokens, a wrong SigV4 secret,
 * and an oversized body. The attacks that broke have their own tests (docs/security.md, "The
 * security suite", lists them all).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { createServices } from '../../../src-main/core/services.js';
import { startWebHost, type WebHost } from '../../../src-main/web-host.js';
import { signedFetch } from '../../support/s3-signing.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

/** Sends a GET with `path` exactly as written (fetch would resolve the dots away). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('latin1') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Twenty-one spellings of "up and out" a static server must not follow. */
const traversals = [
  '/../package.json',
  '/%2e%2e/package.json',
  '/%2E%2E/package.json',
  '/..%2fpackage.json',
  '/..%2Fpackage.json',
  '/%2e%2e%2fpackage.json',
  '/..%5cpackage.json',
  '/..\\package.json',
  '/%252e%252e/package.json',
  '/.%2e/package.json',
  '/%2e./package.json',
  '/....//package.json',
  '/..;/package.json',
  '/%c0%ae%c0%ae/package.json',
  '/%ef%bc%8e%ef%bc%8e/package.json',
  '/assets/../../package.json',
  '/assets/%2e%2e/%2e%2e/package.json',
  '//etc/passwd',
  '/%2fetc%2fpasswd',
  '/..%00/package.json',
  '/index.html%00/../../package.json',
];

describe('security suite: the browser host', () => {
  let home: string;
  let host: WebHost;
  let token: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-held-'));
    host = await startWebHost({
      port: 0,
      roots: [home],
      services: createServices({ COURIER_HOME: home }),
    });
    token = new URLSearchParams(new URL(host.url).hash.slice(1)).get('token')!;
  });

  afterAll(async () => {
    await host.close();
    await rm(home, { recursive: true, force: true });
  });

  const connect = (query: string, headers: Record<string, string>) =>
    new Promise<'open' | number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ipc${query}`, { headers });
      ws.once('open', () => {
        ws.close();
        resolve('open');
      });
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => resolve(-1));
    });

  it.each(traversals)('serves nothing outside the renderer for %s', async (path) => {
    const { body } = await rawGet(host.port, path);
    expect(body).not.toContain('"name": "catalog-courier"');
    expect(body).not.toMatch(/root:.*:0:0:/);
  });

  it('refuses a DNS-rebinding page (its own origin and Host), even holding the token', async () => {
    const rebound = `rebind.example:${host.port}`;
    expect(await connect(`?token=${token}`, { Origin: `http://${rebound}`, Host: rebound })).toBe(
      401,
    );
    expect(await connect(`?token=${token}`, { Origin: `http://localhost:${host.port}` })).toBe(401);
    expect(await connect(`?token=${token}`, { Origin: `http://127.0.0.1:${host.port}` })).toBe(
      'open',
    );
  });

  it('refuses forged tokens of the right shape', async () => {
    const origin = `http://127.0.0.1:${host.port}`;
    for (const forged of [
      randomBytes(24).toString('base64url'),
      token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
      `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
      `${token}x`,
      encodeURIComponent(` ${token}`),
    ]) {
      expect(await connect(`?token=${forged}`, { Origin: origin })).toBe(401);
    }
  });
});

describe('security suite: the sandbox', () => {
  let sandbox: TestSandbox;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });

  afterAll(async () => {
    await sandbox.close();
  });

  it('refuses forged access tokens', async () => {
    const real = await sandbox.token();
    const forged = [
      'Bearer ' + randomBytes(32).toString('hex'),
      `Bearer ${real.slice(0, -2)}${real.endsWith('aa') ? 'bb' : 'aa'}`,
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
      `Basic ${Buffer.from(`${sandbox.info.client_id}:${sandbox.info.client_secret}`).toString('base64')}`,
      '',
    ];
    for (const authorization of forged) {
      const response = await fetch(`${sandbox.info.base_url}/lexicology/tags`, {
        headers: authorization ? { authorization } : {},
      });
      expect(response.status).toBe(401);
    }
    const good = await fetch(`${sandbox.info.base_url}/lexicology/tags`, {
      headers: { authorization: `Bearer ${real}` },
    });
    expect(good.status).toBe(200);
  });

  it('refuses a request signed with a wrong secret access key, and writes nothing', async () => {
    const key = 'delivery/metadata/forged.json';
    const wrong = {
      ...sandbox.info,
      bucket: { ...sandbox.info.bucket, secret_access_key: 'x'.repeat(40) },
    };
    const put = await signedFetch(wrong, {
      method: 'PUT',
      path: `/${sandbox.info.bucket.bucket_name}/${key}`,
      body: '{}',
    });
    expect(put.status).toBe(403);
    expect(await put.text()).toContain('SignatureDoesNotMatch');
    const head = await signedFetch(sandbox.info, {
      method: 'HEAD',
      path: `/${sandbox.info.bucket.bucket_name}/${key}`,
    });
    expect(head.status).toBe(404);
  });

  it('refuses a 50 MB body without falling over', async () => {
    const token = await sandbox.token();
    const response = await fetch(`${sandbox.info.base_url}/ingestion/json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: Buffer.alloc(50 * 1024 * 1024, 0x20),
    }).catch((error: unknown) => error as Error);
    // Refused (413), or the connection closed on the sender once the limit was passed.
    if (response instanceof Response) expect(response.status).toBe(413);
    const after = await fetch(`${sandbox.info.base_url}/lexicology/tags`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(after.status).toBe(200);
  });
});
