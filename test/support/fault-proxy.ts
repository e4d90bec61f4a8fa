import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

import { prng } from './prng.js';

/** What the proxy may do to a request instead of passing it through. */
export type Fault = 'reset' | 'stall' | 'stall-midway' | 'slow-down' | 'reset-after-upstream';

/** Counts of each fault injected so far, and of requests seen. */
export type FaultCounts = Record<Fault, number> & { requests: number; denied: number };

/** Bytes of a body the 'stall-midway' fault forwards before it stops reading. */
const MIDWAY = 256 * 1024;

const SLOW_DOWN = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`;
const ACCESS_DENIED = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`;

/**
 * An HTTP proxy on 127.0.0.1 in front of an S3 server that, with probability `rate` per request
 * and up to `max[fault]` times each, resets the connection (before or after the upstream
 * handled the request), stalls until the client gives up (at once, or after forwarding the start
 * of a large body: 'stall-midway'), or answers 503 SlowDown. `deny`
 * answers 403 AccessDenied to writes whose key matches (a read-only key). The Host header is
 * passed on unchanged so SigV4 signatures still verify upstream.
 */
export async function startFaultProxy(options: {
  upstream: string;
  seed?: number;
  rate?: number;
  max?: Partial<Record<Fault, number>>;
  deny?: RegExp;
  /** Loses the answer of the first request this matches (`METHOD path?query`), once. */
  loseAnswerOf?: RegExp;
  /** Rewrites the ETag of PUT answers (an S3-compatible store whose ETag isn't the MD5). */
  putEtag?: (etag: string) => string;
  /** Drops the checksums PUT answers echo (a store that ignores x-amz-checksum-*). */
  dropPutChecksums?: boolean;
}): Promise<{
  url: string;
  counts: FaultCounts;
  /** Every request, in order: its method and its path with query. */
  seen: { method: string; url: string }[];
  stop: () => Promise<void>;
}> {
  const upstream = new URL(options.upstream);
  const random = prng(options.seed ?? 1);
  const rate = options.rate ?? 0;
  const max: Record<Fault, number> = {
    reset: 0,
    stall: 0,
    'stall-midway': 0,
    'slow-down': 0,
    'reset-after-upstream': 0,
    ...options.max,
  };
  const counts: FaultCounts = {
    reset: 0,
    stall: 0,
    'stall-midway': 0,
    'slow-down': 0,
    'reset-after-upstream': 0,
    requests: 0,
    denied: 0,
  };
  const sockets = new Set<Socket>();
  const seen: { method: string; url: string }[] = [];

  const pick = (bigBody: boolean): Fault | undefined => {
    if (random() >= rate) return undefined;
    const faults = (Object.keys(max) as Fault[]).filter(
      (f) => counts[f] < max[f] && (f !== 'stall-midway' || bigBody),
    );
    if (faults.length === 0) return undefined;
    return faults[Math.floor(random() * faults.length)];
  };

  const forward = (req: IncomingMessage, res: ServerResponse, fault: Fault | undefined): void => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        if (fault === 'reset-after-upstream') {
          // The server did the work but the client never hears it: the retry must be harmless.
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        const headers = { ...answer.headers };
        if (options.putEtag && req.method === 'PUT' && typeof headers.etag === 'string') {
          headers.etag = options.putEtag(headers.etag);
        }
        if (options.dropPutChecksums && req.method === 'PUT') {
          for (const name of Object.keys(headers)) {
            if (name.startsWith('x-amz-checksum-')) delete headers[name];
          }
        }
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => req.socket.destroy());
    req.pipe(out);
  };

  const server: Server = createServer((req, res) => {
    counts.requests++;
    seen.push({ method: req.method ?? '', url: decodeURIComponent(req.url ?? '') });
    const isWrite = req.method === 'PUT' || req.method === 'POST';
    if (options.deny && isWrite && options.deny.test(decodeURIComponent(req.url ?? ''))) {
      counts.denied++;
      req.resume();
      req.on('end', () => {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end(ACCESS_DENIED);
      });
      return;
    }
    let fault = pick(Number(req.headers['content-length'] ?? 0) > MIDWAY * 2);
    if (options.loseAnswerOf?.test(`${req.method} ${decodeURIComponent(req.url ?? '')}`)) {
      options.loseAnswerOf = undefined;
      fault = 'reset-after-upstream';
    }
    if (fault) counts[fault]++;
    switch (fault) {
      case 'reset': {
        // Let a little of the body through, then drop the connection mid-request.
        let seen = 0;
        req.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 16 * 1024) req.socket.destroy();
        });
        req.on('end', () => req.socket.destroy());
        return;
      }
      case 'stall':
        // Swallow the request and never answer; the client's request timeout must fire.
        req.resume();
        return;
      case 'stall-midway': {
        // Forward the start of the body upstream, then stop reading: the connection stays open
        // and carries no more bytes, as when a network path silently stops forwarding.
        const out = request({
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        });
        out.on('error', () => undefined);
        let seen = 0;
        req.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen <= MIDWAY) out.write(chunk);
          else {
            req.pause();
            out.destroy();
          }
        });
        return;
      }
      case 'slow-down':
        req.resume();
        req.on('end', () => {
          res.writeHead(503, { 'content-type': 'application/xml' });
          res.end(SLOW_DOWN);
        });
        return;
      default:
        forward(req, res, fault);
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    seen,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
