import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

describe('profile operations over the contract', () => {
  let home: string;
  let remote: TestSandbox;
  let services: CoreServices;
  let router: Router;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-profiles-'));
    remote = await startTestSandbox();
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter({ kind: 'web', locate: async () => [] }, services);
  });

  afterAll(async () => {
    await services.connections.closeAll();
    await remote.close();
    await rm(home, { recursive: true, force: true });
  });

  const profile = () => ({
    name: 'Label',
    environment: 'staging',
    base_url: remote.info.base_url,
    client_id: remote.info.client_id,
    bucket: {
      bucket_name: remote.info.bucket.bucket_name,
      bucket_region: remote.info.bucket.bucket_region,
      endpoint: remote.info.bucket.endpoint,
      access_key_id: remote.info.bucket.access_key_id,
    },
    catalogs: [{ id: remote.info.catalogs[0]!.id, name: 'Main' }],
  });

  it('lists the Sandbox profile on first run', async () => {
    const result = await router.dispatch('profiles:list', {});
    expect(result).toMatchObject({
      ok: true,
      value: {
        profiles: [{ name: 'Sandbox', sandbox: true }],
        secretStorage: 'memory',
        // The app works on the sandbox from the first launch, with no account.
        active: 'Sandbox',
      },
    });
  });

  it('takes secrets in and only ever says whether they are set', async () => {
    const secrets = {
      client_secret: remote.info.client_secret,
      secret_access_key: remote.info.bucket.secret_access_key,
    };
    const saved = await router.dispatch('profiles:save', { profile: profile(), secrets });
    expect(saved).toMatchObject({
      ok: true,
      value: { name: 'Label', secrets: { client_secret: true, secret_access_key: true } },
    });
    const listed = await router.dispatch('profiles:list', {});
    for (const answer of [saved, listed]) {
      expect(JSON.stringify(answer)).not.toContain(secrets.client_secret);
      expect(JSON.stringify(answer)).not.toContain(secrets.secret_access_key);
    }
  });

  it('tests the connection check by check', async () => {
    const result = await router.dispatch('profiles:test', { name: 'Label' });
    expect(result).toMatchObject({ ok: true, value: { ok: true } });
    const checks = (result as { value: { checks: Array<{ id: string; ok: boolean }> } }).value
      .checks;
    expect(checks.map((c) => c.id)).toEqual(['token', 'tags', 'bucket_list', 'bucket_write']);
  });

  it('lists tags through the profile', async () => {
    const result = await router.dispatch('tags:list', { profile: 'Label', category_name: 'Mood' });
    expect(result).toMatchObject({ ok: true, value: { complete: true } });
    const { tags, total } = (result as { value: { tags: unknown[]; total: number } }).value;
    expect(tags).toHaveLength(total);
  });

  it('refuses a profile that would send secrets over plain http', async () => {
    const result = await router.dispatch('profiles:save', {
      profile: { ...profile(), name: 'Bad', base_url: 'http://api.example.com' },
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_profile',
        message: expect.stringMatching(/^base_url must use https/),
      },
    });
  });

  it('rejects a request carrying fields the contract does not have', async () => {
    const result = await router.dispatch('profiles:save', {
      profile: { ...profile(), client_secret: 'smuggled' },
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('keeps the active profile in main, refuses an unknown one, and forgets a removed one', async () => {
    const active = async () =>
      ((await router.dispatch('profiles:list', {})) as { value: { active: string | null } }).value
        .active;
    expect(await active()).toBe('Sandbox');
    await expect(router.dispatch('profiles:use', { name: 'Label' })).resolves.toEqual({
      ok: true,
      value: { active: 'Label' },
    });
    expect(await active()).toBe('Label');
    await expect(router.dispatch('profiles:use', { name: 'Nope' })).resolves.toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await active()).toBe('Label');
    await expect(router.dispatch('profiles:use', { name: 42 })).resolves.toMatchObject({
      ok: false,
    });
  });

  it('removes a profile', async () => {
    await expect(router.dispatch('profiles:remove', { name: 'Label' })).resolves.toEqual({
      ok: true,
      value: { removed: true },
    });
    const listed = await router.dispatch('profiles:list', {});
    expect(
      (listed as { value: { profiles: Array<{ name: string }> } }).value.profiles.map(
        (p) => p.name,
      ),
    ).toEqual(['Sandbox']);
    // No profile of the user's own is left: the Sandbox is the active one again.
    expect((listed as { value: { active: string | null } }).value.active).toBe('Sandbox');
  });
});
