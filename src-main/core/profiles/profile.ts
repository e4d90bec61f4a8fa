import * as v from 'valibot';

import { CourierError } from '../errors.js';

/** The service environments a client is made for (one client per environment is advised). */
export const ENVIRONMENTS = ['development', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Whether a URL's host is this machine (the only place plain http is allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

const secureUrl = (what: string) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.url(`${what} must be a URL`),
    v.check((value) => {
      if (!URL.canParse(value)) return true; // v.url() above has reported it
      const url = new URL(value);
      return (
        url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))
      );
    }, `${what} must use https (plain http only on this machine: localhost, 127.0.0.1, ::1)`),
    v.transform((value) => value.replace(/\/+$/, '')),
  );

const nonEmpty = (what: string, max = 256) =>
  v.pipe(v.string(), v.trim(), v.minLength(1, `${what} is required`), v.maxLength(max));

/** S3's bucket naming rules: 3–63 lower-case letters, digits, dots and hyphens. */
const bucketName = v.pipe(
  v.string(),
  v.trim(),
  v.regex(
    /^(?!\d+\.\d+\.\d+\.\d+$)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    'bucket name must be 3–63 lower-case letters, digits, dots or hyphens',
  ),
);

export const CatalogSchema = v.object({
  id: nonEmpty('catalog id', 128),
  name: nonEmpty('catalog name', 128),
});

export const ProfileSchema = v.object({
  name: v.pipe(
    nonEmpty('profile name', 64),
    v.regex(/^[^\p{Cc}/\\]+$/u, 'profile name may not contain slashes or control characters'),
  ),
  environment: v.picklist(ENVIRONMENTS, 'environment must be development, staging or production'),
  base_url: secureUrl('base_url'),
  client_id: nonEmpty('client_id'),
  bucket: v.object({
    bucket_name: bucketName,
    bucket_region: v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^[a-z0-9-]{2,32}$/, 'bucket region looks like eu-west-1'),
    ),
    endpoint: v.optional(secureUrl('S3 endpoint')),
    access_key_id: nonEmpty('access key id', 128),
  }),
  catalogs: v.array(CatalogSchema),
  /** The embedded sandbox: its connection is refreshed from the running sandbox. */
  sandbox: v.optional(v.boolean()),
});

/** A connection to one environment of the service and its bucket; secrets are not in it. */
export type Profile = v.InferOutput<typeof ProfileSchema>;
export type ProfileInput = v.InferInput<typeof ProfileSchema>;
export type Catalog = v.InferOutput<typeof CatalogSchema>;

/** Checks and normalises a profile; the error names the field at fault. */
export function parseProfile(input: unknown): Profile {
  const result = v.safeParse(ProfileSchema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const field = issue.path?.map((item) => String(item.key)).join('.');
  // A message that starts with the field's name says which it is already.
  const named = !field || issue.message.startsWith(String(issue.path!.at(-1)!.key));
  throw new ProfileError(named ? issue.message : `${field}: ${issue.message}`);
}

/** A profile that can't be saved as given. */
export class ProfileError extends CourierError {
  constructor(message: string) {
    super('invalid_profile', message);
    this.name = 'ProfileError';
  }
}
