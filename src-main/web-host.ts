/**
 * The browser host: serves the built renderer and carries the IPC contract over a WebSocket on
 * 127.0.0.1, so the real UI runs in a plain Chromium where Electron can't. A dev and test door:
 * the same router as the app, guarded by a random per-run token and an Origin check.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { type WebSocket, WebSocketServer } from 'ws';

import { downloadFileName, openObject } from './core/bucket/bucket-download.js';
import { withProfileBucket } from './core/bucket/profile-bucket.js';
import { CourierError } from './core/errors.js';
import { PickedFileFinder } from './core/files/find-picked-file.js';
import { type CoreServices, createServices } from './core/services.js';
import { fail } from './ipc/contract.js';
import { createRouter, type Router } from './ipc/router.js';
import { readRendererFile } from './renderer-files.js';

const RENDERER_DIR = fileURLToPath(new URL('../dist/renderer/', import.meta.url));
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long a download address stays valid: the page fetches it at once. */
const TICKET_MS = 60_000;
const DOWNLOAD_PATH = '/download/';

export interface WebHostOptions {
  port?: number;
  /**
   * Folders whose files a browser may pick and main may then read, once it has checked their
   * content against the page's proof (see PickedFileFinder and `core/files/grant-picked.ts`).
   */
  roots?: string[];
  rendererDir?: string;
  services?: CoreServices;
}

export interface WebHost {
  /** The address to open, with the per-run token in the fragment (never sent to the server). */
  url: string;
  port: number;
  router: Router;
  close(): Promise<void>;
}

/** Starts the browser host on 127.0.0.1 and resolves once it accepts connections. */
export async function startWebHost(options: WebHostOptions = {}): Promise<WebHost> {
  const rendererDir = options.rendererDir ?? RENDERER_DIR;
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`The renderer is not built (${rendererDir}): run npm run build:renderer`);
  }
  const token = randomBytes(24).toString('base64url');
  const finder = new PickedFileFinder(options.roots ?? [homedir(), process.cwd()]);
  const services = options.services ?? createServices();
  const tickets = new DownloadTickets();
  const router = createRouter(
    {
      kind: 'web',
      locate: (ref) => finder.candidates(ref.relativePath),
      within: () => finder.realRoots(),
      offerDownload: (profile, key) => DOWNLOAD_PATH + tickets.issue(profile, key),
    },
    services,
  );

  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    const served = pathname.startsWith(DOWNLOAD_PATH)
      ? serveDownload(
          tickets.take(pathname.slice(DOWNLOAD_PATH.length)),
          services,
          request,
          response,
        )
      : serveStatic(rendererDir, request, response);
    served.catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  let origin = '';

  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Any web page the user visits can open a WebSocket to 127.0.0.1: only our own page, which
    // alone knows the token, may talk to the router.
    if (
      url.pathname !== '/ipc' ||
      request.headers.origin !== origin ||
      !sameSecret(url.searchParams.get('token') ?? '', token)
    ) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serveSocket(ws, router));
  });

  await new Promise<void>((done, failed) => {
    server.once('error', failed);
    server.listen(options.port ?? 0, '127.0.0.1', () => done());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/#token=${token}`,
    port,
    router,
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function serveSocket(ws: WebSocket, router: Router): void {
  const unsubscribe = router.subscribe((event, payload) => {
    ws.send(JSON.stringify({ event, payload }));
  });
  ws.on('close', unsubscribe);
  ws.on('message', async (data) => {
    let message: { id?: unknown; channel?: unknown; request?: unknown };
    try {
      message = JSON.parse(String(data));
    } catch {
      ws.send(JSON.stringify({ id: null, result: fail('invalid_request', 'Not JSON.') }));
      return;
    }
    const id = typeof message.id === 'number' ? message.id : null;
    const result =
      typeof message.channel === 'string'
        ? await router.dispatch(message.channel, message.request)
        : fail('invalid_request', 'A message needs a channel.');
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, result }));
  });
}

/** What a download address stands for. */
interface Ticket {
  profile: string;
  key: string;
}

/**
 * One-time download addresses. The page gets one over the socket (token and Origin checked) and
 * hands it to the browser's download, which can send neither: the random address is the
 * permission, used once and soon expired, so it is worthless in the browser's download history.
 */
class DownloadTickets {
  readonly #open = new Map<string, Ticket & { expires: number }>();

  issue(profile: string, key: string): string {
    const now = Date.now();
    for (const [id, ticket] of this.#open) if (ticket.expires < now) this.#open.delete(id);
    const id = randomBytes(24).toString('base64url');
    this.#open.set(id, { profile, key, expires: now + TICKET_MS });
    return id;
  }

  /** The ticket, once: a second use, an expired or an unknown address gets nothing. */
  take(id: string): Ticket | undefined {
    const ticket = this.#open.get(id);
    this.#open.delete(id);
    return ticket && ticket.expires >= Date.now() ? ticket : undefined;
  }
}

/** Streams a bucket object to the browser as an attachment, never holding it in memory. */
async function serveDownload(
  ticket: Ticket | undefined,
  services: CoreServices,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'GET') {
    response.writeHead(405).end();
    return;
  }
  if (!ticket || request.headers['sec-fetch-site'] === 'cross-site') {
    plain(response, 404, 'This download address was used or has expired: click Download again.');
    return;
  }
  const { profile, key } = ticket;
  try {
    await withProfileBucket(services.connections, profile, async (s3, bucket) => {
      const object = await openObject(s3, bucket, key);
      response.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(object.size),
        'Content-Disposition': attachment(downloadFileName(key)),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      await pipeline(object.body, response);
    });
  } catch (error) {
    if (response.headersSent) {
      // Cut the connection: the browser marks the download failed instead of keeping a part.
      response.destroy();
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const notFound = error instanceof CourierError && error.code === 'not_found';
    plain(response, notFound ? 404 : 502, `Could not download ${key}: ${message}`);
  }
}

/** `Content-Disposition` for a file name: an ASCII fallback and the UTF-8 name (RFC 6266). */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  // RFC 5987 leaves ' ( ) * out of the characters allowed unencoded; encodeURIComponent keeps them.
  const utf8 = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
}

async function serveStatic(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405).end();
    return;
  }
  const file = await readRendererFile(root, new URL(request.url ?? '/', 'http://x').pathname);
  if (!file) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, {
    'Content-Type': file.type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  response.end(request.method === 'HEAD' ? undefined : file.body);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      root: { type: 'string', multiple: true },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`courier web: --port must be a port number, got ${values.port}`);
    process.exit(2);
  }
  const roots = values.root?.map((root) => resolve(root));
  const host = await startWebHost({ port, ...(roots ? { roots } : {}) });
  console.log(`Catalog Courier is running. Open ${host.url}`);
  const stop = () => void host.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(`courier web: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
