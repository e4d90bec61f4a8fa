/**
 * A secret is bound to where it is sent: the client secret to the API's base URL and client id,
 * the S3 secret access key to the bucket's endpoint, region, name and access key id. A profile
 * whose bound fields change loses the secret (`ProfileStore.save`), and a secret is never handed
 * out for a profile other than the one it was entered for (`ProfileStore.secret`), so a changed
 * address — edited in the app, by a compromised renderer or by hand in profiles.json — can't
 * receive a secret typed for another. Free of Node APIs: the renderer shows the same rule.
 */
import type { SecretName } from '../secrets/secret-store.js';

/** The fields of a profile a secret is bound to (a draft's raw text, or a checked profile). */
export interface BindingFields {
  base_url: string;
  client_id: string;
  bucket: {
    bucket_name: string;
    bucket_region: string;
    endpoint?: string | undefined;
    access_key_id: string;
  };
}

/** The secrets, as people call them. */
export const secretLabels: Record<SecretName, string> = {
  client_secret: 'client secret',
  secret_access_key: 'S3 secret access key',
};

const clean = (text: string | undefined) => (text ?? '').trim();
const cleanUrl = (text: string | undefined) => clean(text).replace(/\/+$/, '');

/** The values `name` is bound to, in a fixed order (as a profile is checked: trimmed, no trailing slash). */
function boundValues(profile: BindingFields, name: SecretName): string[] {
  if (name === 'client_secret') return [cleanUrl(profile.base_url), clean(profile.client_id)];
  const { bucket } = profile;
  return [
    cleanUrl(bucket.endpoint),
    clean(bucket.bucket_region),
    clean(bucket.bucket_name),
    clean(bucket.access_key_id),
  ];
}

/** What `name` of `profile` is bound to, as stored beside the secret. */
export function secretBinding(profile: BindingFields, name: SecretName): string {
  return JSON.stringify([name, ...boundValues(profile, name)]);
}

/** Whether going from `before` to `after` changes where `name` is sent (so it must be typed again). */
export function bindingChanged(
  before: BindingFields,
  after: BindingFields,
  name: SecretName,
): boolean {
  return secretBinding(before, name) !== secretBinding(after, name);
}

/** Where a binding sends its secret, in words ("https://api.example.com, client id abc"). */
export function describeBinding(binding: string): string {
  const parsed: unknown = JSON.parse(binding);
  if (!Array.isArray(parsed)) return 'another address';
  const [name, ...values] = parsed as string[];
  if (name === 'client_secret') return `${values[0]}, client id ${values[1]}`;
  const [endpoint, region, bucket, accessKey] = values;
  return `bucket ${bucket} in ${region}${endpoint ? ` at ${endpoint}` : ''}, access key id ${accessKey}`;
}

/** The fields `name` is bound to, named for a person ("base URL or client id"). */
export const boundFieldNames: Record<SecretName, string> = {
  client_secret: 'API base URL or client id',
  secret_access_key: 'bucket name, region, endpoint or access key id',
};
