/**
 * The contract's profile, secret and tag operations over core. Secrets only ever travel
 * renderer → main (write-only); what comes back says whether each is set.
 */
import { testConnection } from '../core/connection-test.js';
import { ensureSandboxProfile } from '../core/profiles/first-run.js';
import type { Profile } from '../core/profiles/profile.js';
import { MemorySecretStore } from '../core/secrets/secret-store.js';
import type { CoreServices } from '../core/services.js';
import type { ProfileSummary, RequestOf, ResultOf } from './contract.js';

type Names =
  | 'listProfiles'
  | 'useProfile'
  | 'saveProfile'
  | 'removeProfile'
  | 'testProfile'
  | 'useSessionSecrets'
  | 'listTags';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };

/** The handlers for the profile domain, for the router. */
export function profileHandlers(services: CoreServices): Handlers {
  const { profiles, connections } = services;
  const summary = async (profile: Profile): Promise<ProfileSummary> => ({
    ...profile,
    sandbox: Boolean(profile.sandbox),
    secrets: await profiles.secretStatus(profile),
  });

  return {
    async listProfiles() {
      await ensureSandboxProfile(profiles, services.dataDir);
      const list = await profiles.list();
      return {
        profiles: await Promise.all(list.map(summary)),
        active: (await profiles.active()) ?? null,
        secretStorage: profiles.secrets.kind,
        invalid: await profiles.invalid(),
      };
    },
    async useProfile({ name }) {
      await profiles.setActive(name);
      return { active: name };
    },
    async saveProfile({ profile, secrets }) {
      const saved = await profiles.save(profile, secrets ?? {});
      await connections.forget(saved.name);
      return summary(saved);
    },
    async removeProfile({ name }) {
      await connections.forget(name);
      await profiles.remove(name);
      return { removed: true };
    },
    async testProfile({ name }) {
      // A fresh connection, so the test sees the profile and secrets as they are now.
      await connections.forget(name);
      return testConnection(await connections.get(name));
    },
    async useSessionSecrets() {
      profiles.useSecretStore(new MemorySecretStore());
      return { secretStorage: 'memory' };
    },
    async listTags({ profile, limit, ...filters }) {
      const { api } = await connections.get(profile);
      if (limit !== undefined) {
        const page = await api.listTags({ ...filters, limit });
        return { tags: page.tags, total: page.total_size, complete: page.size >= page.total_size };
      }
      return api.listAllTags(filters);
    },
  };
}
