/**
 * A profile made live: the API client and the bucket target, with secrets fetched from the
 * keychain (or the environment) into memory only. The Sandbox profile connects to the embedded
 * sandbox, starting it when no Courier process runs it yet.
 */
import { ServiceClient } from './api/service-client.js';
import { redactor } from './log.js';
import type { NetworkTimeouts } from './network/timeouts.js';
import type { Profile } from './profiles/profile.js';
import type { ProfileStore } from './profiles/profile-store.js';
import { sandboxProfile } from './profiles/sandbox-profile.js';
import { connectEmbeddedSandbox } from './sandbox/embedded.js';
import type { S3Target } from './storage/s3-client.js';

export interface Connection {
  profile: Profile;
  api: ServiceClient;
  bucket: S3Target;
  /** Releases what the connection holds (stops a sandbox this process started). */
  close(): Promise<void>;
}

/** Opens the connection of a profile by name. */
export async function openConnection(
  profiles: ProfileStore,
  dataDir: string,
  name: string,
  timeouts?: Partial<NetworkTimeouts>,
): Promise<Connection> {
  let profile = await profiles.get(name);
  if (profile.sandbox) {
    const sandbox = await connectEmbeddedSandbox(dataDir);
    redactor.add(sandbox.info.client_secret);
    redactor.add(sandbox.info.bucket.secret_access_key);
    // Its ports change from run to run: keep the profile pointing at this run.
    profile = await profiles.save({ ...sandboxProfile(sandbox.info), catalogs: profile.catalogs });
    return {
      profile,
      api: new ServiceClient({
        baseUrl: sandbox.info.base_url,
        clientId: sandbox.info.client_id,
        clientSecret: async () => sandbox.info.client_secret,
        timeouts,
      }),
      bucket: targetOf(profile, sandbox.info.bucket.secret_access_key, timeouts),
      close: () => sandbox.close(),
    };
  }
  const secretAccessKey = await profiles.secret(profile, 'secret_access_key');
  const current = profile;
  return {
    profile,
    api: new ServiceClient({
      baseUrl: profile.base_url,
      clientId: profile.client_id,
      clientSecret: () => profiles.secret(current, 'client_secret'),
      timeouts,
    }),
    bucket: targetOf(profile, secretAccessKey, timeouts),
    close: async () => undefined,
  };
}

function targetOf(
  profile: Profile,
  secretAccessKey: string,
  timeouts: Partial<NetworkTimeouts> | undefined,
): S3Target {
  return {
    ...(timeouts ? { timeouts } : {}),
    region: profile.bucket.bucket_region,
    bucket: profile.bucket.bucket_name,
    accessKeyId: profile.bucket.access_key_id,
    secretAccessKey,
    ...(profile.bucket.endpoint ? { endpoint: profile.bucket.endpoint } : {}),
  };
}
