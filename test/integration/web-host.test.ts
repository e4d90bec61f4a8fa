import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';

import { withProfileBucket } from '../../src-main/core/bucket/profile-bucket.js';
import { blobProof } from '../../src-main/core/model/file-proof.js';
import { MemorySecretStore } from '../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../src-main/core/services.js';
import type { Envelope } from '../../src-main/ipc/contract.js';
import { startWebHost, type WebHost } from '../../src-main/web-host.js';

describe('the browser host', () => {
  let home: string;
  let host: WebHost;
  let origin: string;
  let token: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-web-'));
    host = await startWebHost({
      port: 0,
      roots: [home],
      services: createServices({ COURIER_HOME: home }),
    });
    const url = new URL(host.url);
    origin = url.origin;
    token = new URLSearchParams(url.hash.slice(1)).get('token')!;
  });

  afterAll(async () => {
    await host.close();
    await rm(home, { recursive: true, force: true });
  });

  /** Opens a socket and resolves with it, or with the HTTP status that refused it. */
  const connect = (query: string, headers: Record<string, string>) =>
    new Promise<WebSocket | number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ipc${query}`, { headers });
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      ws.once('error', () => resolve(-1));
    });

  const call = (ws: WebSocket, message: unknown) =>
    new Promise<unknown>((resolve) => {
      ws.once('message', (data) => resolve(JSON.parse(String(data))));
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    });

  it('listens on 127.0.0.1 only and prints a URL carrying the token in the fragment', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{32}$/);
  });

  it('serves the built renderer with its CSP', async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("default-src 'none'");
    expect((await fetch(`${origin}/%2e%2e/package.json`)).status).toBe(404);
  });

  it('refuses a socket without the token, with a wrong one, or from another origin', async () => {
    expect(await connect('', { Origin: origin })).toBe(401);
    expect(await connect('?token=guess', { Origin: origin })).toBe(401);
    expect(await connect(`?token=${token}`, { Origin: 'https://evil.example' })).toBe(401);
  });

  it('carries the contract: a request gets its envelope back under the same id', async () => {
    const ws = await connect(`?token=${token}`, { Origin: origin });
    expect(ws).toBeInstanceOf(WebSocket);
    const socket = ws as WebSocket;
    await expect(call(socket, { id: 7, channel: 'app:info', request: {} })).resolves.toMatchObject({
      id: 7,
      result: { ok: true, value: { host: 'web', dataDir: home } },
    });
    await expect(call(socket, { id: 8, channel: 'nope:nope' })).resolves.toMatchObject({
      id: 8,
      result: { ok: false, error: { code: 'unknown_channel' } },
    });
    await expect(call(socket, '{not json')).resolves.toMatchObject({
      id: null,
      result: { ok: false, error: { code: 'invalid_request' } },
    });
    socket.close();
  });

  it('pushes main → renderer events to connected pages', async () => {
    const socket = (await connect(`?token=${token}`, { Origin: origin })) as WebSocket;
    const received = new Promise((resolve) =>
      socket.once('message', (d) => resolve(JSON.parse(String(d)))),
    );
    host.router.emit('app:notice', { level: 'info', message: 'Sandbox ready' });
    await expect(received).resolves.toEqual({
      event: 'app:notice',
      payload: { level: 'info', message: 'Sandbox ready' },
    });
    socket.close();
  });
});

describe('the browser host’s downloads', () => {
  let home: string;
  let services: CoreServices;
  let host: WebHost;
  let origin: string;
  let socket: WebSocket;
  let nextId = 1;

  /** Calls an operation over the page's socket, as the renderer's bridge does. */
  const call = <T>(channel: string, request: unknown) =>
    new Promise<Envelope<T>>((resolve) => {
      const id = nextId++;
      const onMessage = (data: unknown) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: Envelope<T> };
        if (message.id !== id) return;
        socket.off('message', onMessage);
        resolve(message.result!);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, channel, request }));
    });

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-web-download-'));
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    host = await startWebHost({ port: 0, roots: [home], services });
    const url = new URL(host.url);
    origin = url.origin;
    const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
    socket = new WebSocket(`ws://127.0.0.1:${host.port}/ipc?token=${token}`, {
      headers: { Origin: origin },
    });
    await new Promise((resolve) => socket.once('open', resolve));
    // The first listing of profiles adds the Sandbox profile; its bucket runs in-process.
    await call('profiles:list', {});
  });

  afterAll(async () => {
    socket.close();
    await host.close();
    await services.connections.closeAll();
    await rm(home, { recursive: true, force: true });
  });

  it('streams a CSV to the browser’s download, once, from a one-time address', async () => {
    // Shaped like the service's tags export; csv_outputs/ is read-only to the organisation's
    // keys, so it goes where they may write (the journey e2e downloads a real export).
    const key = 'delivery/metadata/tags-1763700000000.csv';
    const csv = 'outer_id,tag_name,category\nGBAYE2100001,Calm,Mood\nGBAYE2100002,Jóga,Mood\n';
    await withProfileBucket(services.connections, 'Sandbox', (s3, bucket) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: csv })),
    );

    const offered = await call<{ outcome: string; url: string }>('bucket:save', {
      profile: 'Sandbox',
      key,
    });
    expect(offered).toMatchObject({ ok: true, value: { outcome: 'browser', key } });
    const path = (offered as { value: { url: string } }).value.url;
    expect(path).toMatch(/^\/download\/[\w-]{32}$/);

    const response = await fetch(origin + path);
    expect(response.status).toBe(200);
    const name = key.split('/').pop()!;
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${name}"; filename*=UTF-8''${name}`,
    );
    expect(await response.text()).toBe(csv);

    // The address is spent: the download history can't replay it.
    const again = await fetch(origin + path);
    expect(again.status).toBe(404);
    expect(await again.text()).toMatch(/used or has expired/);
  });

  it('refuses an address it never gave, a cross-site request and other methods', async () => {
    expect((await fetch(`${origin}/download/guess`)).status).toBe(404);
    const ticket = async () =>
      (
        (await call('bucket:save', { profile: 'Sandbox', key: 'INFO.json' })) as {
          value: { url: string };
        }
      ).value.url;
    const crossSite = await fetch(origin + (await ticket()), {
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossSite.status).toBe(404);
    expect((await fetch(origin + (await ticket()), { method: 'POST' })).status).toBe(405);
  });

  it('names a download by its key’s last segment, in UTF-8 with an ASCII fallback', async () => {
    const key = 'delivery/metadata/Björk “Jóga”.csv';
    await withProfileBucket(services.connections, 'Sandbox', (s3, bucket) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'a,b\n' })),
    );
    const offered = (await call('bucket:save', { profile: 'Sandbox', key })) as {
      value: { url: string };
    };
    const response = await fetch(origin + offered.value.url);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Bj_rk _J_ga_.csv"; filename*=UTF-8''${encodeURIComponent('Björk “Jóga”.csv')}`,
    );
    expect(await response.text()).toBe('a,b\n');
  });

  it('answers 404 with the reason for an object that is not in the bucket', async () => {
    const offered = (await call('bucket:save', {
      profile: 'Sandbox',
      key: 'csv_outputs/none/gone.csv',
    })) as { value: { url: string } };
    const response = await fetch(origin + offered.value.url);
    expect(response.status).toBe(404);
    expect(await response.text()).toMatch(/gone\.csv is not in the bucket/);
  });
});

describe('the browser host’s file grants', () => {
  let base: string;
  let root: string;
  let services: CoreServices;
  let host: WebHost;
  let socket: WebSocket;
  let nextId = 1;
  const mtime = new Date('2024-03-01T12:00:00.123Z');
  /** A master over 128 KiB, so the proof reads its two ends only. */
  const master = Buffer.alloc(300_000, 7);
  const hidden = Buffer.from('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n');

  const call = <T>(channel: string, request: unknown) =>
    new Promise<Envelope<T>>((resolve) => {
      const id = nextId++;
      const onMessage = (data: unknown) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: Envelope<T> };
        if (message.id !== id) return;
        socket.off('message', onMessage);
        resolve(message.result!);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, channel, request }));
    });
  type Grants = Envelope<{
    granted: Array<{ id: string; relativePath: string }>;
    refused: Array<{ relativePath: string; reason: string }>;
  }>;
  const grant = (files: unknown[]) => call('files:grant', { files }) as Promise<Grants>;

  /** What a page that only guesses sends: a path, a size and a date, and some proof. */
  const guess = (relativePath: string, size: number, lastModified: number, proof: string) => ({
    name: relativePath.split('/').pop()!,
    relativePath,
    size,
    lastModified,
    proof,
  });
  const realProof = (bytes: Buffer) => blobProof(new Blob([new Uint8Array(bytes)]));

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'courier-web-grants-'));
    root = join(base, 'music');
    await mkdir(join(root, 'Label', 'Album'), { recursive: true });
    await mkdir(join(root, '.aws'), { recursive: true });
    await writeFile(join(root, 'Label', 'Album', '01.flac'), master);
    await writeFile(join(root, '.aws', 'credentials'), hidden);
    await writeFile(join(root, '.env'), hidden);
    for (const file of ['Label/Album/01.flac', '.aws/credentials', '.env']) {
      await utimes(join(root, file), mtime, mtime);
    }
  });

  // Each test gets its own host: the minute's count of misses starts at zero.
  beforeEach(async () => {
    services = createServices(
      { COURIER_HOME: join(base, 'home') },
      { secrets: new MemorySecretStore() },
    );
    host = await startWebHost({ port: 0, roots: [root], services });
    const url = new URL(host.url);
    const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
    socket = new WebSocket(`ws://127.0.0.1:${host.port}/ipc?token=${token}`, {
      headers: { Origin: url.origin },
    });
    await new Promise((resolve) => socket.once('open', resolve));
  });

  afterEach(async () => {
    socket.close();
    await host.close();
  });

  afterAll(() => rm(base, { recursive: true, force: true }));

  it('grants a file picked in the page: its content proves it', async () => {
    const result = await grant([
      guess('Album/01.flac', master.length, mtime.getTime(), await realProof(master)),
    ]);
    expect(result).toMatchObject({
      ok: true,
      value: { granted: [{ relativePath: 'Album/01.flac' }], refused: [] },
    });
  });

  it('refuses the right path, size and date with a proof of other content', async () => {
    const other = Buffer.from(master);
    other[0] = 8;
    const result = await grant([
      guess('Album/01.flac', master.length, mtime.getTime(), await realProof(other)),
    ]);
    expect(result).toMatchObject({
      ok: true,
      value: {
        granted: [],
        refused: [{ relativePath: 'Album/01.flac', reason: expect.stringMatching(/content/) }],
      },
    });
  });

  it('refuses a file without a proof before looking for it', async () => {
    const unproved: Partial<ReturnType<typeof guess>> = guess(
      'Album/01.flac',
      master.length,
      mtime.getTime(),
      '',
    );
    delete unproved.proof;
    expect(await grant([unproved])).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringMatching(/proof/) },
    });
  });

  it('gives no grant to a page guessing paths, sizes and dates by the thousand', async () => {
    // The attack of #17: one message, every millisecond of ten seconds around the real date,
    // with the sizes a page may try; the proof is what such a page can't have.
    const start = Date.now();
    const guesses = [];
    for (let ms = -5_000; ms < 5_000; ms++) {
      const proof = ms % 2 === 0 ? '0'.repeat(64) : await realProof(Buffer.from(String(ms)));
      guesses.push(guess('Album/01.flac', master.length, mtime.getTime() + ms, proof));
    }
    const result = await grant(guesses);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.granted).toEqual([]);
    expect(result.value.refused).toHaveLength(guesses.length);
    // The host gave up after a few misses, and said why.
    const guarded = result.value.refused.filter((r) => /guard against guessing/.test(r.reason));
    expect(guarded.length).toBeGreaterThan(guesses.length - 100);
    expect(Date.now() - start).toBeLessThan(20_000);

    // Other messages get no further: past a few hundred misses a minute, none is looked for.
    let reasons: string[] = [];
    for (let message = 0; message < 5; message++) {
      const next = await grant(guesses.slice(0, 60));
      expect(next).toMatchObject({ ok: true, value: { granted: [] } });
      reasons = (next as { value: { refused: Array<{ reason: string }> } }).value.refused.map(
        (r) => r.reason,
      );
    }
    expect(reasons).toEqual(
      Array(60).fill(expect.stringMatching(/in the last minute .*again in a minute/)),
    );
    // And the host's log says so, for whoever looks after the machine.
    await services.log.log('info', 'test: flushed');
    const log = await readFile(join(base, 'home', 'logs', 'courier.log'), 'utf8');
    expect(log).toMatch(/"level":"warn".*stopped looking for files after too many misses/);
  });

  it('never finds a hidden file, even for a page that knows its size, date and content', async () => {
    const proof = await realProof(hidden);
    const result = await grant([
      guess('.aws/credentials', hidden.length, mtime.getTime(), proof),
      guess('.env', hidden.length, mtime.getTime(), proof),
      guess('music/.env', hidden.length, mtime.getTime(), proof),
    ]);
    expect(result).toMatchObject({ ok: true, value: { granted: [] } });
    expect((result as { value: { refused: unknown[] } }).value.refused).toHaveLength(3);
  });
});
