import type { SandboxInfo } from '../sandbox/index.js';
import type { ProfileInput } from './profile.js';

/** The name of the profile that points at the embedded sandbox. */
export const SANDBOX_PROFILE = 'Sandbox';

/** The Sandbox profile for a running sandbox (its ports change from run to run). */
export function sandboxProfile(info: SandboxInfo): ProfileInput {
  return {
    name: SANDBOX_PROFILE,
    environment: 'development',
    base_url: info.base_url,
    client_id: info.client_id,
    bucket: {
      bucket_name: info.bucket.bucket_name,
      bucket_region: info.bucket.bucket_region,
      endpoint: info.bucket.endpoint,
      access_key_id: info.bucket.access_key_id,
    },
    catalogs: info.catalogs,
    sandbox: true,
  };
}
