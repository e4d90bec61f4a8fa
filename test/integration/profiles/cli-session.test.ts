import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { keychainTier } from '../../support/keychain-tier.js';
import { runCli } from '../../support/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import type { SecretService } from '../../support/secret-service.js';

const service = await keychainTier();

/** Every file below `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe.skipIf(!service)('a full CLI session with profiles', () => {
  let home: string;
  let remote: TestSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-cli-'));
    // A sandbox of its own plays the remote service, as a label's real account would.
    remote = await startTestSandbox();
    env = {
      ...(service as SecretService).env,
      COURIER_HOME: home,
      COURIER_KEYCHAIN_SERVICE: 'Catalog Courier (tests)',
      COURIER_CLIENT_SECRET: '',
      COURIER_SECRET_ACCESS_KEY: '',
    };
  });

  afterAll(async () => {
    await remote?.close();
    await rm(home, { recursive: true, force: true });
    await service?.stop();
  });

  const addArgs = (name: string, baseUrl = remote.info.base_url) => [
    'profile',
    'add',
    name,
    '--base-url',
    baseUrl,
    '--client-id',
    remote.info.client_id,
    '--bucket',
    remote.info.bucket.bucket_name,
    '--region',
    remote.info.bucket.bucket_region,
    '--access-key-id',
    remote.info.bucket.access_key_id,
    '--s3-endpoint',
    remote.info.bucket.endpoint,
    '--env',
    'staging',
    '--catalog',
    `${remote.info.catalogs[0]!.id}=Main catalog`,
  ];

  it('starts with the Sandbox profile on first run', async () => {
    const run = await runCli(['profile', 'list', '--json'], { env });
    expect(run.code).toBe(0);
    const profiles = JSON.parse(run.stdout) as Array<{ name: string; sandbox?: boolean }>;
    expect(profiles).toEqual([expect.objectContaining({ name: 'Sandbox', sandbox: true })]);
  });

  it('adds a profile with secrets typed at the prompt, never in argv', async () => {
    const input = `${remote.info.client_secret}\n${remote.info.bucket.secret_access_key}\n`;
    const run = await runCli(addArgs('Label'), { env, input });
    expect(run.stderr).toContain('Saved profile "Label" (staging)');
    expect(run.code).toBe(0);
    const list = JSON.parse((await runCli(['profile', 'list', '--json'], { env })).stdout);
    expect(list[1]).toMatchObject({
      name: 'Label',
      environment: 'staging',
      catalogs: [{ id: remote.info.catalogs[0]!.id, name: 'Main catalog' }],
      secrets: { client_secret: true, secret_access_key: true },
    });
  });

  it('tests every part of the connection, each on its own', async () => {
    const run = await runCli(['profile', 'test', 'Label', '--json'], { env });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: Array<{ id: string; ok: boolean }>;
    };
    expect(report.checks.map((c) => [c.id, c.ok])).toEqual([
      ['token', true],
      ['tags', true],
      ['bucket_list', true],
      ['bucket_write', true],
    ]);
  });

  it('names the cause and the fix when a secret is wrong', async () => {
    const run = await runCli(['profile', 'test', 'Label', '--json'], {
      env: { ...env, COURIER_CLIENT_SECRET: 'a-wrong-client-secret' },
    });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      checks: Array<{ id: string; ok: boolean; hint?: string }>;
    };
    expect(report.checks[0]).toMatchObject({
      id: 'token',
      ok: false,
      hint: expect.stringMatching(/client secret/),
    });
    expect(report.checks.find((c) => c.id === 'bucket_write')).toMatchObject({ ok: true });
  });

  it('lists the lexicology as JSON with filters', async () => {
    const run = await runCli(['tags', '--profile', 'Label', '--category', 'Genre', '--json'], {
      env,
    });
    expect(run.code).toBe(0);
    const tags = JSON.parse(run.stdout) as Array<{
      id: string;
      name: string;
      category: { name: string };
    }>;
    expect(tags.length).toBeGreaterThan(20);
    expect(tags.every((t) => t.category.name === 'Genre' && Object.keys(t).length === 3)).toBe(
      true,
    );
  });

  it('refuses plain http to another machine, as a usage error', async () => {
    const run = await runCli(addArgs('Insecure', 'http://api.example.com'), {
      env: { ...env, COURIER_CLIENT_SECRET: 'x-secret', COURIER_SECRET_ACCESS_KEY: 'y-secret' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/base_url must use https/);
  });

  it('reports an unreachable keychain clearly, without the secret', async () => {
    const run = await runCli(addArgs('NoKeychain'), {
      env: {
        ...env,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
        COURIER_CLIENT_SECRET: 'kc-secret-123456',
        COURIER_SECRET_ACCESS_KEY: 'kc-secret-654321',
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/OS keychain/);
    expect(run.stderr).not.toContain('kc-secret');
  });

  it('removes a profile and its secrets', async () => {
    const run = await runCli(['profile', 'remove', 'Label'], { env });
    expect(run.code).toBe(0);
    const names = JSON.parse((await runCli(['profile', 'list', '--json'], { env })).stdout).map(
      (p: { name: string }) => p.name,
    );
    expect(names).toEqual(['Sandbox']);
  });

  it('left no secret anywhere in the data directory or the logs', async () => {
    const secrets = [
      remote.info.client_secret,
      remote.info.bucket.secret_access_key,
      'a-wrong-client-secret',
      'kc-secret-123456',
    ];
    const files = await filesUnder(home);
    expect(files.some((f) => f.includes(join(home, 'logs')))).toBe(true);
    for (const file of files) {
      // The embedded sandbox keeps its own (fake) credentials in its identity file, by design.
      if (file.startsWith(join(home, 'sandbox'))) continue;
      if ((await stat(file)).size > 10_000_000) continue;
      const text = await readFile(file, 'latin1');
      for (const secret of secrets)
        expect(text.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });
});
