import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { readJsonIfExists, writeJsonAtomic } from '../files/atomic-file.js';

/** The sandbox organization's generated identity, stable for one data directory. */
export interface SandboxIdentity {
  organization_id: string;
  client: { id: string; client_id: string; client_secret: string };
  catalogs: { id: string; name: string }[];
  bucket: {
    bucket_name: string;
    bucket_region: string;
    access_key_id: string;
    secret_access_key: string;
  };
  /** Signs access tokens so they stay valid across restarts of the same sandbox. */
  token_signing_key: string;
  created_at: number;
}

/** Fixed prefix of bucket names (section 2.6: prefix, organization id, region, "prd"). */
export const BUCKET_PREFIX = 'caas';
export const BUCKET_REGION = 'eu-west-1';
const CATALOG_NAMES = ['Main Catalog', 'Back Catalog', 'Production Music'];

/** Builds the bucket name of an organization; always a valid S3 bucket name (55 characters). */
export function bucketNameFor(organizationId: string, region = BUCKET_REGION): string {
  return `${BUCKET_PREFIX}-${organizationId.toLowerCase()}-${region}-prd`;
}

function token(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** Loads the identity of a data directory, generating and saving it on first use. */
export async function loadOrCreateIdentity(dir: string, now: number): Promise<SandboxIdentity> {
  const path = join(dir, 'identity.json');
  const existing = await readJsonIfExists<SandboxIdentity>(path);
  if (existing) return existing;
  const organizationId = randomUUID();
  const identity: SandboxIdentity = {
    organization_id: organizationId,
    client: {
      id: randomUUID(),
      client_id: `sandbox-${randomBytes(8).toString('hex')}`,
      client_secret: token(32),
    },
    catalogs: CATALOG_NAMES.map((name) => ({ id: randomUUID(), name })),
    bucket: {
      bucket_name: bucketNameFor(organizationId),
      bucket_region: BUCKET_REGION,
      access_key_id: `AKSB${randomBytes(8).toString('hex').toUpperCase()}`,
      secret_access_key: token(30),
    },
    token_signing_key: token(32),
    created_at: now,
  };
  await writeJsonAtomic(path, identity);
  return identity;
}
