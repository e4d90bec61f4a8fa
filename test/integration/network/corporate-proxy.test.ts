/**
 * Corporate networks: every request Courier makes (the service API and every S3 call) goes
 * through the proxy the environment names, HTTPS through a gateway whose CA only
 * NODE_EXTRA_CA_CERTS vouches for works, and loopback never goes through a proxy.
 *
 * The sandbox is published as catalog.courier.test, a name that resolves only inside the test
 * proxy (a real HTTP proxy in its own process, see test/support/http-proxy-child.mjs): a request
 * that reached it can only have gone through the proxy, so "none direct" is not an assumption.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ServiceClient } from '../../../src-main/core/api/service-client.js';
import { listBucket, readObject } from '../../../src-main/core/bucket/bucket-browser.js';
import { saveObjectToFile } from '../../../src-main/core/bucket/bucket-download.js';
import { envProxyResolver } from '../../../src-main/core/network/proxy.js';
import { configureNetwork } from '../../../src-main/core/network/routes.js';
import { createS3Client } from '../../../src-main/core/storage/s3-client.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { startHttpProxy, type TestProxy } from '../../support/http-proxy.js';
import { runCli } from '../../support/run-cli.js';
import { bucketTarget, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { makeTestCa, missingOpenssl, type TestCa } from '../../support/test-ca.js';
import { addProfile, makeHome, makeTaggedTracks } from '../delivery/delivery-helpers.js';

const HOST = 'catalog.courier.test';
const missing = [...missingFixtureTools(), missingOpenssl()].filter(Boolean);
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`CI=true but ${missing.join(', ')}`);
  console.warn(`Skipping the corporate-network tests: ${missing.join(', ')}`);
}

/** No proxy variables from the machine running the tests. */
const NO_PROXY_ENV = {
  HTTPS_PROXY: '',
  https_proxy: '',
  HTTP_PROXY: '',
  http_proxy: '',
  ALL_PROXY: '',
  all_proxy: '',
  NO_PROXY: '',
  no_proxy: '',
  NODE_EXTRA_CA_CERTS: '',
};

/** The ports of a sandbox's API and bucket, as host:port strings. */
function tunnelsOf(sandbox: TestSandbox): string[] {
  return [new URL(sandbox.info.base_url).host, new URL(sandbox.info.bucket.endpoint).host];
}

/** Every file below `dir`, relative. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length));
}

describe.skipIf(missing.length > 0)('corporate networks', () => {
  let ca: TestCa;
  let secure: TestSandbox;
  let proxy: TestProxy;
  let home: string;
  let catalog: string;

  beforeAll(async () => {
    ca = await makeTestCa([HOST, '127.0.0.1']);
    // Profiles take plain http only on this machine, so the office's service is HTTPS, with a
    // certificate from the gateway's CA.
    secure = await startTestSandbox({ hostName: HOST, tls: { key: ca.key, cert: ca.cert } });
    proxy = await startHttpProxy({ hosts: { [HOST]: '127.0.0.1' } });
    home = await makeHome();
    catalog = secure.info.catalogs[0]!.id;
  });
  afterAll(async () => {
    await proxy?.close();
    await secure?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('courier deliver sends the API and the bucket through HTTPS_PROXY, and a name only the proxy resolves is delivered to', async () => {
    const env = {
      ...(await addProfile(home, secure, 'Office')),
      ...NO_PROXY_ENV,
      NODE_EXTRA_CA_CERTS: ca.caPath,
    };
    const dir = join(home, '..', `proxied-${Date.now()}`);
    await makeTaggedTracks(dir, 3);
    const args = ['deliver', dir, '--profile', 'Office', '--catalog', catalog, '--mode', 'json'];

    // Without the proxy the name doesn't resolve: nothing can go direct.
    const direct = await runCli(args, { env });
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/catalog\.courier\.test.*host name not found/);

    const before = proxy.seen.length;
    const run = await runCli([...args, '--json'], { env: { ...env, HTTPS_PROXY: proxy.url } });
    expect(run.stderr).not.toMatch(/failed|error/i);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'accepted' });
    // Both hosts were reached only as tunnels through the proxy.
    const tunnels = new Set(proxy.seen.slice(before).map((r) => `${r.method} ${r.url}`));
    expect([...tunnels].sort()).toEqual(
      tunnelsOf(secure)
        .map((h) => `CONNECT ${h}`)
        .sort(),
    );
    // And the files are in the sandbox's bucket.
    const stored = await filesUnder(join(secure.dataDir, 'bucket'));
    expect(stored.filter((f) => f.includes('delivery/audio/')).length).toBeGreaterThanOrEqual(3);
    await rm(dir, { recursive: true, force: true });
  });

  it('NO_PROXY sends a host straight to it, and loopback never goes through a proxy', async () => {
    const env = {
      ...(await addProfile(home, secure, 'Bypass')),
      ...NO_PROXY_ENV,
      NODE_EXTRA_CA_CERTS: ca.caPath,
    };
    const dir = join(home, '..', `bypass-${Date.now()}`);
    await makeTaggedTracks(dir, 1);
    const before = proxy.seen.length;
    const bypass = await runCli(
      ['deliver', dir, '--profile', 'Bypass', '--catalog', catalog, '--mode', 'json'],
      { env: { ...env, HTTPS_PROXY: proxy.url, NO_PROXY: `localhost,.courier.test` } },
    );
    expect(bypass.code).toBe(1);
    expect(bypass.stderr).toMatch(/catalog\.courier\.test.*host name not found/);
    expect(proxy.seen.length).toBe(before);

    // The embedded sandbox is on 127.0.0.1: a proxy that isn't even there changes nothing,
    // for the bucket (upload) and the API (deliver).
    const sandboxHome = await makeHome();
    const deadProxy = {
      ...NO_PROXY_ENV,
      COURIER_HOME: sandboxHome,
      HTTP_PROXY: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
    };
    const upload = await runCli(['upload', dir, '--profile', 'Sandbox', '--to', 'loopback'], {
      env: deadProxy,
    });
    expect(upload.stderr).toMatch(/1 uploaded, 0 already there, 0 failed/);
    expect(upload.code).toBe(0);
    const listed = await runCli(['profile', 'list', '--json'], { env: deadProxy });
    const sandboxCatalog = (JSON.parse(listed.stdout) as { catalogs: { id: string }[] }[])[0]!
      .catalogs[0]!.id;
    const loopback = await runCli(
      ['deliver', dir, '--profile', 'Sandbox', '--catalog', sandboxCatalog, '--mode', 'json'],
      { env: deadProxy },
    );
    expect(loopback.stderr).toMatch(/accepted: 1 request\(s\), 1 track\(s\)/);
    expect(loopback.code).toBe(0);
    expect(proxy.seen.length).toBe(before);
    await rm(sandboxHome, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  it("trusts a TLS gateway's CA named by NODE_EXTRA_CA_CERTS, through the proxy, and says so in one line when it isn't", async () => {
    const env = { ...(await addProfile(home, secure, 'Secure')), ...NO_PROXY_ENV };
    expect(secure.info.base_url).toMatch(/^https:\/\/catalog\.courier\.test:/);
    const dir = join(home, '..', `tls-${Date.now()}`);
    await makeTaggedTracks(dir, 2);
    const args = ['deliver', dir, '--profile', 'Secure', '--catalog', catalog, '--mode', 'json'];
    const proxied = { ...env, HTTPS_PROXY: proxy.url };

    const untrusted = await runCli(args, { env: proxied });
    expect(untrusted.code).toBe(1);
    const lines = untrusted.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/certificate.*not trusted.*NODE_EXTRA_CA_CERTS/);

    const before = proxy.seen.length;
    const trusted = await runCli([...args, '--json'], {
      env: { ...proxied, NODE_EXTRA_CA_CERTS: ca.caPath },
    });
    expect(trusted.stderr).toMatch(/accepted: 1 request\(s\), 2 track\(s\)/);
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ state: 'accepted' });
    const tunnels = new Set(proxy.seen.slice(before).map((r) => `${r.method} ${r.url}`));
    expect([...tunnels].sort()).toEqual(
      tunnelsOf(secure)
        .map((h) => `CONNECT ${h}`)
        .sort(),
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a proxy its credentials from the address, keeps the password out of every output, and says so in one line when they are missing', async () => {
    const password = 's3cr3t pass/é';
    const guarded = await startHttpProxy({
      hosts: { [HOST]: '127.0.0.1' },
      auth: `office:${password}`,
    });
    try {
      const env = {
        ...(await addProfile(home, secure, 'Guarded')),
        ...NO_PROXY_ENV,
        NODE_EXTRA_CA_CERTS: ca.caPath,
      };
      const dir = join(home, '..', `guarded-${Date.now()}`);
      await makeTaggedTracks(dir, 1);
      const args = ['deliver', dir, '--profile', 'Guarded', '--catalog', catalog];

      const refused = await runCli([...args, '--mode', 'json'], {
        env: { ...env, HTTPS_PROXY: guarded.url },
      });
      expect(refused.code).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /the proxy asks for credentials \(407\).*http:\/\/user:password@host:port/,
      );
      // Refused once per host, not retried for the unreachable bound.
      expect(guarded.seen.filter((r) => r.refused === 407).length).toBeLessThanOrEqual(2);

      const withCredentials = `http://office:${encodeURIComponent(password)}@127.0.0.1:${guarded.port}`;
      const run = await runCli([...args, '--mode', 'json'], {
        env: { ...env, HTTPS_PROXY: withCredentials },
      });
      expect(run.stderr).toMatch(/accepted: 1 request\(s\), 1 track\(s\)/);
      expect(run.code).toBe(0);
      expect(guarded.seen.filter((r) => !r.refused).length).toBeGreaterThanOrEqual(2);
      const logs = await filesUnder(join(home, 'logs'));
      const logText = (
        await Promise.all(logs.map((f) => readFile(join(home, 'logs', f), 'utf8')))
      ).join('\n');
      for (const text of [run.stdout, run.stderr, refused.stderr, logText]) {
        expect(text).not.toContain(password);
        expect(text).not.toContain(encodeURIComponent(password));
      }
      await rm(dir, { recursive: true, force: true });
    } finally {
      await guarded.close();
    }
  });

  it('names the proxy when it is the one not answering, and refuses a proxy address it cannot use before anything runs', async () => {
    const env = {
      ...(await addProfile(home, secure, 'Down')),
      ...NO_PROXY_ENV,
      NODE_EXTRA_CA_CERTS: ca.caPath,
      COURIER_NETWORK_TIMEOUTS: 'unreachable=1500,connect=1000',
    };
    const dir = join(home, '..', `down-${Date.now()}`);
    await makeTaggedTracks(dir, 1);
    const args = ['deliver', dir, '--profile', 'Down', '--catalog', catalog, '--mode', 'json'];
    const down = await runCli(args, { env: { ...env, HTTPS_PROXY: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/through the proxy 127\.0\.0\.1:9: connection refused/);

    const socks = await runCli(args, {
      env: { ...env, HTTPS_PROXY: 'socks5://office:hunter2@127.0.0.1:1080' },
    });
    expect(socks.code).toBe(2);
    expect(socks.stderr.trim()).toBe(
      'courier deliver: HTTPS_PROXY names a socks5 proxy ("socks5://office:***@127.0.0.1:1080"): Courier supports HTTP and HTTPS proxies (http://host:port or https://host:port).',
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('lists, heads, reads and downloads from the bucket and calls the API through the proxy', async () => {
    // This process trusts the gateway's CA as the CLI does: from NODE_EXTRA_CA_CERTS, read on
    // the first HTTPS connection (none was made before in this file's process).
    process.env.NODE_EXTRA_CA_CERTS = ca.caPath;
    configureNetwork(envProxyResolver({ HTTPS_PROXY: proxy.url }));
    try {
      const { info } = secure;
      const s3 = createS3Client(bucketTarget(info.bucket));
      const before = proxy.seen.length;
      const key = 'delivery/audio/proxy-check/hello.mp3';
      const body = Buffer.alloc(64 * 1024, 7);
      await s3.send(
        new PutObjectCommand({ Bucket: info.bucket.bucket_name, Key: key, Body: body }),
      );
      const listing = await listBucket(s3, info.bucket.bucket_name, 'delivery/audio/proxy-check/');
      expect(listing.objects.map((o) => o.key)).toEqual([key]);
      const head = await s3.send(
        new HeadObjectCommand({ Bucket: info.bucket.bucket_name, Key: key }),
      );
      expect(head.ContentLength).toBe(body.length);
      const target = join(home, 'downloaded.mp3');
      await saveObjectToFile(s3, info.bucket.bucket_name, key, target);
      expect(await readFile(target)).toEqual(body);
      const start = await readObject(s3, info.bucket.bucket_name, key, 16);
      expect(start.bytes.length).toBe(16);
      s3.destroy();

      const api = new ServiceClient({
        baseUrl: info.base_url,
        clientId: info.client_id,
        clientSecret: async () => info.client_secret,
      });
      await api.tokens.get();
      expect(api.tokenRequests).toBe(1);
      const hosts = new Set(proxy.seen.slice(before).map((r) => r.url));
      expect([...hosts].sort()).toEqual(tunnelsOf(secure).sort());
    } finally {
      configureNetwork(envProxyResolver({}));
    }
  });
});
