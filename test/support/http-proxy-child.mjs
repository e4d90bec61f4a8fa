/**
 * A real HTTP proxy (the `proxy` package, maintained with the proxy agents Courier uses) in its
 * own process, for the corporate-network tests. It stands for an office's proxy: host names in
 * COURIER_PROXY_HOSTS ("name=address,…") resolve here and nowhere else, as a company's internal
 * or external names often resolve only on its proxy, so a request that reaches such a name can
 * only have gone through this proxy. Every request is printed as one JSON line; COURIER_PROXY_AUTH
 * ("user:password") makes it ask for Basic credentials (407 otherwise).
 */
import dns from 'node:dns';
import { createServer } from 'node:http';

import { createProxy } from 'proxy';

const hosts = new Map(
  (process.env.COURIER_PROXY_HOSTS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=')),
);
const lookup = dns.lookup;
dns.lookup = (name, options, callback) => {
  const address = hosts.get(String(name).toLowerCase());
  if (!address) return lookup(name, options, callback);
  const done = typeof options === 'function' ? options : callback;
  const all = typeof options === 'object' && options?.all;
  process.nextTick(() => (all ? done(null, [{ address, family: 4 }]) : done(null, address, 4)));
};

const server = createProxy(createServer());
const expected = process.env.COURIER_PROXY_AUTH;
if (expected) {
  server.authenticate = (req) => {
    const header = req.headers['proxy-authorization'] ?? '';
    const given = header.startsWith('Basic ')
      ? Buffer.from(header.slice(6), 'base64').toString('utf8')
      : '';
    const ok = given === expected;
    if (!ok) print({ method: req.method, url: req.url, refused: 407 });
    return ok;
  };
}

function print(entry) {
  process.stdout.write(`${JSON.stringify(entry)}\n`);
}

server.on('request', (req) => print({ method: req.method, url: req.url }));
server.on('connect', (req) => print({ method: 'CONNECT', url: req.url }));
server.listen(0, '127.0.0.1', () => print({ listening: server.address().port }));
process.on('SIGTERM', () => process.exit(0));
