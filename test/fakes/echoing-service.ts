/**
 * A fake of the service for redaction tests (one fake per unreachable boundary): a real HTTP
 * server that behaves like a careless production service and echoes credentials back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A fake service on 127.0.0.1: it issues `token` and answers the first JSON ingestion with 200,
 * every later one with 500, each body echoing the request's Authorization header and the token.
 */
export async function startEchoingService(
  token: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  let ingestions = 0;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const now = Math.floor(Date.now() / 1000);
      if (req.method === 'POST' && path === '/oauth/access_tokens/client') {
        return send(res, 201, {
          data: { token, issued_at: now, expires_at: now + 3600 },
          timestamp: Date.now(),
        });
      }
      if (req.method === 'GET' && path === '/lexicology/tags') {
        return send(res, 200, { data: [], offset: 0, limit: 0, size: 0, total_size: 0 });
      }
      if (req.method === 'POST' && path === '/ingestion/json') {
        ingestions++;
        const echo = { authorization: req.headers.authorization, seen: `token was ${token}` };
        if (ingestions === 1) return send(res, 200, { data: { accepted: true }, echo });
        return send(res, 500, {
          error: { message: `cannot ingest for ${req.headers.authorization} (${token})` },
          echo,
        });
      }
      send(res, 404, { error: { message: 'not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
