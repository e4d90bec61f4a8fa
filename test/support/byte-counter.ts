import { connect, createServer, type Socket } from 'node:net';

/** Bytes a client sent through the counter, as they arrived. */
export interface ByteCounter {
  url: string;
  /** Each chunk received from a client, stamped with `performance.now()` on arrival. */
  arrivals: Array<{ at: number; bytes: number }>;
  /** Bytes that arrived at or after `at` (a `performance.now()` time). */
  bytesSince(at: number): number;
  stop(): Promise<void>;
}

/**
 * A TCP pass-through on 127.0.0.1 in front of a server that counts every byte clients send,
 * when it arrives: what the server receives, measured outside the uploader. It does not slow
 * anything down; the uploader's bandwidth limit does that.
 */
export async function startByteCounter(upstream: string): Promise<ByteCounter> {
  const target = new URL(upstream);
  const arrivals: ByteCounter['arrivals'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const server = connect(Number(target.port), target.hostname);
    sockets.add(client).add(server);
    client.on('data', (chunk: Buffer) => {
      arrivals.push({ at: performance.now(), bytes: chunk.length });
    });
    client.pipe(server);
    server.pipe(client);
    const close = (): void => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('error', close).on('close', close);
    server.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    bytesSince: (at) => arrivals.filter((a) => a.at >= at).reduce((n, a) => n + a.bytes, 0),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
