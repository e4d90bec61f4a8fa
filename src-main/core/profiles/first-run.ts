import { sandboxDir } from '../sandbox/embedded.js';
import { loadOrCreateIdentity } from '../sandbox/identity.js';
import type { ProfileStore } from './profile-store.js';
import { SANDBOX_PROFILE, sandboxProfile } from './sandbox-profile.js';

/** Where the Sandbox profile points before the sandbox first runs (refreshed on connect). */
const NOT_YET_STARTED = 'http://127.0.0.1';

/**
 * On the very first run (no profiles file yet) creates the Sandbox profile, so Courier works
 * with no account. A user who later removes it is not given it back. With no profile of the
 * user's own and none chosen, the Sandbox is the active one.
 */
export async function ensureSandboxProfile(store: ProfileStore, dataDir: string): Promise<void> {
  if (await store.exists()) {
    await sandboxUnlessOwn(store);
    return;
  }
  const identity = await loadOrCreateIdentity(sandboxDir(dataDir), Date.now());
  await store.save(
    sandboxProfile({
      base_url: NOT_YET_STARTED,
      organization_id: identity.organization_id,
      client_id: identity.client.client_id,
      client_secret: identity.client.client_secret,
      catalogs: identity.catalogs.map(({ id, name }) => ({ id, name })),
      bucket: { ...identity.bucket, endpoint: NOT_YET_STARTED },
    }),
  );
  await store.setActive(SANDBOX_PROFILE);
}

/** Makes the Sandbox active when nothing is and the user has no profile of their own. */
async function sandboxUnlessOwn(store: ProfileStore): Promise<void> {
  if ((await store.active()) !== undefined) return;
  const profiles = await store.list();
  if (profiles.some((p) => !p.sandbox) || !profiles.some((p) => p.name === SANDBOX_PROFILE)) return;
  await store.setActive(SANDBOX_PROFILE);
}

export { SANDBOX_PROFILE };
