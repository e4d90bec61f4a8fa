/**
 * Where this build looks for updates. electron-builder writes `app-update.yml` into the app's
 * resources at packaging time from `publish` in electron-builder.yml (filled from the build
 * environment by scripts/dist.mjs); electron-updater reads the same file. A build made without
 * a feed has no such file: then nothing is checked, and Settings says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

import { CourierError } from '../errors.js';

/** The feed of a build: the provider electron-updater uses, and the address core fetches. */
export type UpdateConfig =
  | { provider: 'generic'; url: string; channel?: string }
  | {
      provider: 's3';
      bucket: string;
      region?: string;
      path?: string;
      endpoint?: string;
      /** The bucket's public address the feed files are under (as electron-updater builds it). */
      url: string;
    };

/** The file electron-builder writes into the packaged app's resources. */
export const APP_UPDATE_FILE = 'app-update.yml';

/**
 * Reads the build's feed from `<resourcesDir>/app-update.yml`; null when there is no directory
 * (an unpackaged run) or no file (a build made without a feed). A file that names no usable feed
 * throws a `CourierError` with one line saying what is wrong.
 */
export function readUpdateConfig(resourcesDir: string | null): UpdateConfig | null {
  if (!resourcesDir) return null;
  const path = join(resourcesDir, APP_UPDATE_FILE);
  let text: string;
  try {
    // Synchronous: a few bytes, read once while the app starts, before its router exists.
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseUpdateConfig(text, path);
}

/** Reads the text of an `app-update.yml`; `source` names it in errors. */
export function parseUpdateConfig(text: string, source: string): UpdateConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch {
    raw = undefined;
  }
  const config = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const string = (key: string) =>
    typeof config[key] === 'string' && config[key] ? (config[key] as string) : undefined;
  const problem = (what: string) =>
    new CourierError('update_config', `The update settings in ${source} ${what}.`);

  if (config.provider === 'generic') {
    const url = string('url');
    if (!url || !/^https?:\/\//.test(url)) throw problem('have no http(s) url for the feed');
    const channel = string('channel');
    return { provider: 'generic', url, ...(channel ? { channel } : {}) };
  }
  if (config.provider === 's3') {
    const bucket = string('bucket');
    if (!bucket) throw problem('name no S3 bucket');
    const options = {
      bucket,
      region: string('region'),
      path: string('path'),
      endpoint: string('endpoint'),
    };
    if (bucket.includes('.') && !options.region && !options.endpoint) {
      throw problem(`name bucket ${bucket}, which has a dot, without its region`);
    }
    return {
      provider: 's3',
      ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
      bucket,
      url: s3BaseUrl(options),
    };
  }
  throw problem(
    `name provider ${JSON.stringify(config.provider ?? null)}; this app reads generic or s3`,
  );
}

/** The public address of an S3 feed, as builder-util-runtime's `s3Url` builds it. */
function s3BaseUrl(options: {
  bucket: string;
  region?: string;
  path?: string;
  endpoint?: string;
}): string {
  let url: string;
  if (options.endpoint) url = `${options.endpoint.replace(/\/+$/, '')}/${options.bucket}`;
  else if (options.bucket.includes('.')) {
    url =
      options.region === 'us-east-1'
        ? `https://s3.amazonaws.com/${options.bucket}`
        : `https://s3-${options.region}.amazonaws.com/${options.bucket}`;
  } else if (options.region === 'cn-north-1') {
    url = `https://${options.bucket}.s3.${options.region}.amazonaws.com.cn`;
  } else url = `https://${options.bucket}.s3.amazonaws.com`;
  if (options.path) url += options.path.startsWith('/') ? options.path : `/${options.path}`;
  return url;
}
