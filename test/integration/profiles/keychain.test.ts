import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ProfileStore } from '../../../src-main/core/profiles/profile-store.js';
import { KeychainSecretStore } from '../../../src-main/core/secrets/keychain-store.js';
import { keychainTier } from '../../support/keychain-tier.js';
import type { SecretService } from '../../support/secret-service.js';

const service = await keychainTier();

describe.skipIf(!service)('profiles with secrets in a real Secret Service', () => {
  let home: string;
  let keychain: KeychainSecretStore;
  let store: ProfileStore;
  const clientSecret = 'cs-8e1f0c2a-very-secret';
  const s3Secret = 's3-wJalrXUtnFEMI/K7MDENG/bPxRfiCY';

  const profile = {
    name: 'Label Production',
    environment: 'production' as const,
    base_url: 'https://api.example.com/',
    client_id: 'client-123',
    bucket: {
      bucket_name: 'caas-org-eu-west-1-prd',
      bucket_region: 'eu-west-1',
      access_key_id: 'AKIAEXAMPLE',
    },
    catalogs: [{ id: '3f7c1b2e-0000-4000-8000-000000000001', name: 'Main' }],
  };

  beforeAll(async () => {
    process.env.DBUS_SESSION_BUS_ADDRESS = (service as SecretService).env.DBUS_SESSION_BUS_ADDRESS;
    home = await mkdtemp(join(tmpdir(), 'courier-profiles-'));
    keychain = new KeychainSecretStore('Catalog Courier (tests)');
    store = new ProfileStore(home, keychain, {});
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await service?.stop();
  });

  it('keeps secrets in the keychain and the rest in profiles.json', async () => {
    const saved = await store.save(profile, {
      client_secret: clientSecret,
      secret_access_key: s3Secret,
    });
    expect(saved.base_url).toBe('https://api.example.com');
    // Each beside what it is bound to (secret-binding.ts).
    const stored = async (name: 'client_secret' | 'secret_access_key') =>
      JSON.parse((await keychain.get('Label Production', name)) ?? '{}') as { secret?: string };
    expect((await stored('client_secret')).secret).toBe(clientSecret);
    expect((await stored('secret_access_key')).secret).toBe(s3Secret);
    const file = await readFile(join(home, 'profiles.json'), 'utf8');
    expect(file).toContain('client-123');
    expect(file).not.toContain(clientSecret);
    expect(file).not.toContain(s3Secret);
  });

  it('tells whether each secret is set, without revealing it', async () => {
    await expect(store.secretStatus(await store.get('Label Production'))).resolves.toEqual({
      client_secret: true,
      secret_access_key: true,
    });
  });

  it('lets the environment override the keychain for one process', async () => {
    const automated = new ProfileStore(home, keychain, {
      COURIER_CLIENT_SECRET: 'from-env-secret',
    });
    await expect(
      automated.secret(await store.get('Label Production'), 'client_secret'),
    ).resolves.toBe('from-env-secret');
    await expect(
      automated.secret(await store.get('Label Production'), 'secret_access_key'),
    ).resolves.toBe(s3Secret);
  });

  it('removes the secrets with the profile', async () => {
    const saved = await store.get('Label Production');
    await store.remove('Label Production');
    await expect(keychain.get('Label Production', 'client_secret')).resolves.toBeNull();
    await expect(store.list()).resolves.toEqual([]);
    await expect(store.secret(saved, 'client_secret')).rejects.toMatchObject({
      code: 'secret_missing',
    });
  });
});
