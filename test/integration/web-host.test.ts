import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';

import { createServices } from '../../src-main/core/services.js';
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
