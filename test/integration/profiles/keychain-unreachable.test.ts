/**
 * A keychain that can't be reached (no Secret Service on the session bus, a locked or missing
 * keychain) leaves profiles usable: a profile saved without secrets is listed (the app's list
 * and `courier profile list` both read `secretStatus`) with its secrets not set and the
 * keychain's reason, instead of the whole list failing. Against the real keyring module,
 * pointed at no bus.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ProfileStore } from '../../../src-main/core/profiles/profile-store.js';
import { KeychainSecretStore } from '../../../src-main/core/secrets/keychain-store.js';

const NO_BUS = 'unix:path=/nonexistent/courier-test-bus';

describe('profiles when the keychain cannot be reached', () => {
  let home: string;
  let store: ProfileStore;
  const busBefore = process.env.DBUS_SESSION_BUS_ADDRESS;

  const profile = {
    name: 'Label Live',
    environment: 'staging' as const,
    base_url: 'https://api.label.example/',
    client_id: 'label-client',
    bucket: {
      bucket_name: 'label-deliveries',
      bucket_region: 'eu-west-1',
      access_key_id: 'AKIAEXAMPLE0001',
    },
    catalogs: [],
  };

  beforeAll(async () => {
    process.env.DBUS_SESSION_BUS_ADDRESS = NO_BUS;
    home = await mkdtemp(join(tmpdir(), 'courier-no-keychain-'));
    store = new ProfileStore(home, new KeychainSecretStore('Catalog Courier (tests)'), {});
  });

  afterAll(async () => {
    if (busBefore === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = busBefore;
    await rm(home, { recursive: true, force: true });
  });

  it('saves a profile without secrets and tells why its secrets read as not set', async () => {
    await store.save(profile);
    const status = await store.secretStatus(await store.get('Label Live'));
    expect(status.client_secret).toBe(false);
    expect(status.secret_access_key).toBe(false);
    expect(status.keychain).toMatch(
      /^Could not read the (client_secret|secret_access_key) of profile "Label Live" in the OS keychain \(.+\)\. Unlock or install a keychain, or choose to keep secrets for this session only\.$/,
    );
  });
});
