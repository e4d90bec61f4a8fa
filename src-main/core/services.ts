import { ConnectionPool } from './connection-pool.js';
import { dataDir } from './data-dir.js';
import { FileGrants } from './files/file-grants.js';
import { Logger } from './log.js';
import { envProxyResolver, type ProxyResolver } from './network/proxy.js';
import { configureNetwork } from './network/routes.js';
import { type NetworkTimeouts, timeoutsFromEnv } from './network/timeouts.js';
import { boundHeapGrowth, type ProcessKind } from './process-tuning.js';
import { ProfileStore } from './profiles/profile-store.js';
import { KeychainSecretStore } from './secrets/keychain-store.js';
import type { SecretStore } from './secrets/secret-store.js';

/** The core services one running door (app, browser host, CLI) shares across its requests. */
export interface CoreServices {
  dataDir: string;
  grants: FileGrants;
  profiles: ProfileStore;
  connections: ConnectionPool;
  log: Logger;
  /** Network limits set by `COURIER_NETWORK_TIMEOUTS` (the defaults for what it leaves out). */
  timeouts?: Partial<NetworkTimeouts>;
}

/**
 * Creates the services for this process, rooted at the data directory. Secrets go to the OS
 * keychain unless a store is given (memory, for a session-only choice);
 * `COURIER_KEYCHAIN_SERVICE` names the keychain service (tests use their own). Every request
 * of the process takes the route `resolveProxy` gives (the app passes the OS's answer); without
 * one, `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` decide, and a malformed one is a usage error
 * here, before anything runs. The process's heap stops growing far past what it holds, how
 * far depending on the kind of process (`process-tuning.ts`).
 */
export function createServices(
  env: NodeJS.ProcessEnv = process.env,
  options: {
    secrets?: SecretStore;
    source?: string;
    resolveProxy?: ProxyResolver;
    /** The CLI's commands run as a batch; the app and the browser host answer a window. */
    process?: ProcessKind;
  } = {},
): CoreServices {
  boundHeapGrowth(options.process ?? 'interactive');
  configureNetwork(options.resolveProxy ?? envProxyResolver(env));
  const dir = dataDir(env);
  const secrets = options.secrets ?? new KeychainSecretStore(env.COURIER_KEYCHAIN_SERVICE);
  const profiles = new ProfileStore(dir, secrets, env);
  const timeouts = timeoutsFromEnv(env);
  return {
    dataDir: dir,
    grants: new FileGrants(),
    profiles,
    connections: new ConnectionPool(profiles, dir, timeouts),
    log: new Logger(dir, options.source ?? 'courier'),
    timeouts,
  };
}
