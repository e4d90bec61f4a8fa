/**
 * Secrets bound to where they go (#17): a renderer (or a hand edit of profiles.json) that points
 * a profile at another address gets no secret sent there. The attack as it was found: save a
 * profile with its secrets, save it again with the base URL (or S3 endpoint) changed to a
 * listener on 127.0.0.1 and no secrets, then test the connection — the listener must receive no
 * secret and no request signed with one. Against the real sandbox and a real Secret Service.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';

import { KeychainSecretStore } from '../../../src-main/core/secrets/keychain-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { keychainTier } from '../../support/keychain-tier.js';
import { runCli } from '../../support/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import type { SecretService } from '../../support/secret-service.js';

const service = await keychainTier();

/** A listener on 127.0.0.1 that records every request it gets, head and body. */
interface Listener {
  url: string;
  seen: { head: string; body: string }[];
  close(): Promise<void>;
}

/** With `redirectTo`, it answers every request with a 307 to the same path there. */
async function startListener(redirectTo?: string): Promise<Listener> {
  const seen: Listener['seen'] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (redirectTo) {
      res.writeHead(307, { location: `${redirectTo}${req.url}` }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        head: `${req.method} ${req.url}\n${JSON.stringify(req.headers)}`,
        body: Buffer.concat(chunks).toString('latin1'),
      });
      res.writeHead(500, { 'content-type': 'text/plain' }).end('listener');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!service)('secrets bound to where they are sent', () => {
  let home: string;
  let remote: TestSandbox;
  let listener: Listener;
  let keychain: KeychainSecretStore;
  let services: CoreServices;
  let router: Router;
  const keychainService = `Catalog Courier (binding tests ${process.pid})`;

  beforeAll(async () => {
    process.env.DBUS_SESSION_BUS_ADDRESS = (service as SecretService).env.DBUS_SESSION_BUS_ADDRESS;
    home = await mkdtemp(join(tmpdir(), 'courier-binding-'));
    remote = await startTestSandbox();
    listener = await startListener();
    keychain = new KeychainSecretStore(keychainService);
  });

  beforeEach(async () => {
    await services?.connections.closeAll();
    services = createServices({ COURIER_HOME: home }, { secrets: keychain });
    router = createRouter({ kind: 'web', locate: async () => [] }, services);
    listener.seen.length = 0;
  });

  afterAll(async () => {
    await services?.connections.closeAll();
    await keychain.delete('Label', 'client_secret');
    await keychain.delete('Label', 'secret_access_key');
    await listener.close();
    await remote.close();
    await rm(home, { recursive: true, force: true });
    await service?.stop();
  });

  const secrets = () => ({
    client_secret: remote.info.client_secret,
    secret_access_key: remote.info.bucket.secret_access_key,
  });
  const profile = (change: { base_url?: string; endpoint?: string } = {}) => ({
    name: 'Label',
    environment: 'staging',
    base_url: change.base_url ?? remote.info.base_url,
    client_id: remote.info.client_id,
    bucket: {
      bucket_name: remote.info.bucket.bucket_name,
      bucket_region: remote.info.bucket.bucket_region,
      endpoint: change.endpoint ?? remote.info.bucket.endpoint,
      access_key_id: remote.info.bucket.access_key_id,
    },
    catalogs: [{ id: remote.info.catalogs[0]!.id, name: 'Main' }],
  });
  const leaked = () =>
    listener.seen.filter(
      ({ head, body }) =>
        head.includes('authorization') ||
        `${head}${body}`.includes(remote.info.client_secret) ||
        `${head}${body}`.includes(remote.info.bucket.secret_access_key),
    );
  const statusOf = (answer: unknown) =>
    (answer as { value: { secrets: Record<string, boolean> } }).value.secrets;

  it('works where the secrets were entered', async () => {
    await router.dispatch('profiles:save', { profile: profile(), secrets: secrets() });
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    expect(tested).toMatchObject({ ok: true, value: { ok: true } });
  });

  it('a changed base URL clears the client secret: the new address gets nothing', async () => {
    const saved = await router.dispatch('profiles:save', {
      profile: profile({ base_url: listener.url }),
    });
    expect(statusOf(saved)).toEqual({ client_secret: false, secret_access_key: true });
    await expect(keychain.get('Label', 'client_secret')).resolves.toBeNull();
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    expect(JSON.stringify(tested)).toMatch(/has no client_secret/);
    expect(leaked()).toEqual([]);
    // Typed again for the real address, it works again.
    await router.dispatch('profiles:save', {
      profile: profile(),
      secrets: { client_secret: remote.info.client_secret },
    });
    const again = await router.dispatch('profiles:test', { name: 'Label' });
    expect(again).toMatchObject({ ok: true, value: { ok: true } });
  });

  it('a changed S3 endpoint clears the S3 secret: nothing signed reaches it', async () => {
    const saved = await router.dispatch('profiles:save', {
      profile: profile({ endpoint: listener.url }),
    });
    expect(statusOf(saved)).toEqual({ client_secret: true, secret_access_key: false });
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    expect(JSON.stringify(tested)).toMatch(/has no secret_access_key/);
    expect(listener.seen).toEqual([]);
    await router.dispatch('profiles:save', { profile: profile(), secrets: secrets() });
  });

  it('a base URL edited by hand in profiles.json is refused, naming both addresses', async () => {
    const file = join(home, 'profiles.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(remote.info.base_url, listener.url));
    onTestFinished(() => writeFile(file, text));
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    const message = JSON.stringify(tested);
    expect(message).toContain(`was entered for ${remote.info.base_url}`);
    expect(message).toContain(`does not send it to ${listener.url}`);
    expect(leaked()).toEqual([]);
    const listed = await router.dispatch('profiles:list', {});
    const label = (
      listed as { value: { profiles: { name: string; secrets: Record<string, boolean> }[] } }
    ).value.profiles.find((p) => p.name === 'Label');
    expect(label?.secrets.client_secret).toBe(false);
    // The CLI refuses the same way, with the README's exit code for a failure.
    const cli = await runCli(['profile', 'test', 'Label'], {
      env: { COURIER_HOME: home, COURIER_KEYCHAIN_SERVICE: keychainService },
    });
    expect(cli.code).toBe(1);
    expect(`${cli.stdout}${cli.stderr}`).toContain(`does not send it to ${listener.url}`);
    expect(leaked()).toEqual([]);
  });

  it('a profiles.json edited to an address Courier would refuse to save is never used', async () => {
    const file = join(home, 'profiles.json');
    const text = await readFile(file, 'utf8');
    const port = new URL(listener.url).port;
    await writeFile(file, text.replace(remote.info.base_url, `http://0.0.0.0:${port}`));
    onTestFinished(() => writeFile(file, text));
    const listed = await router.dispatch('profiles:list', {});
    expect(listed).toMatchObject({
      ok: true,
      value: {
        invalid: [{ name: 'Label', message: expect.stringMatching(/base_url must use https/) }],
      },
    });
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    expect(tested).toMatchObject({ ok: false, error: { code: 'invalid_profile' } });
    const cli = await runCli(['profile', 'list'], {
      env: { COURIER_HOME: home, COURIER_KEYCHAIN_SERVICE: keychainService },
    });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/Label.*can't be used: base_url must use https/);
    expect(listener.seen).toEqual([]);
  });

  it('a redirect from the service is not followed: the secret goes nowhere else', async () => {
    const redirector = await startListener(listener.url);
    onTestFinished(async () => {
      await router.dispatch('profiles:save', { profile: profile(), secrets: secrets() });
      await redirector.close();
    });
    await router.dispatch('profiles:save', {
      profile: profile({ base_url: redirector.url }),
      secrets: { client_secret: remote.info.client_secret },
    });
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    expect(JSON.stringify(tested)).toMatch(
      /answered 307, a redirect to http:\/\/127\.0\.0\.1:\d+\/oauth\/access_tokens\/client; Courier sends nothing on to another address/,
    );
    expect(listener.seen).toEqual([]);
  });

  it('a secret stored before secrets were bound is bound to the profile as saved', async () => {
    await keychain.set('Label', 'client_secret', remote.info.client_secret);
    const tested = await router.dispatch('profiles:test', { name: 'Label' });
    expect(tested).toMatchObject({ ok: true, value: { ok: true } });
    const stored = JSON.parse((await keychain.get('Label', 'client_secret'))!) as { for: string };
    expect(stored.for).toContain(remote.info.base_url);
  });
});
