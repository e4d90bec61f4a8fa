/**
 * What `bench:deliver` and `bench:sync` share: a folder of tiny tagged MP3s, the profile a
 * delivering child process uses to reach the run's sandbox, that child process itself, and the
 * sandbox's log of the API requests it received.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import type {
  Entry,
  LoggedRequest,
  RequestCounts,
  SandboxInfo,
} from '../../src-main/core/sandbox/index.js';
import { MemorySecretStore } from '../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../src-main/core/services.js';
import {
  copyTemplate,
  type FixtureTags,
  makeAudio,
  writeTags,
} from '../../test/support/audio-fixtures.js';

/** The name of the profile the delivering child saves and delivers with. */
export const BENCH_PROFILE = 'Bench';

/** Where master `i` of a generated catalog lives: 1,000 files per sub-folder. */
export function masterPath(dir: string, i: number): string {
  return join(
    dir,
    String(Math.floor(i / 1000)).padStart(2, '0'),
    `${String(i).padStart(5, '0')}.mp3`,
  );
}

/** The tags master `i` is generated with (its ISRC is its outer_id in json mode). */
export function masterTags(i: number): FixtureTags {
  return {
    title: `Bench ${i}`,
    isrc: `GBABC26${String(i).padStart(5, '0')}`,
    artists: [`Artist ${i % 97}`],
  };
}

/**
 * Writes `tracks` tagged 0.05 s MP3s under `dir` (`masterPath`, `masterTags`): one template by
 * ffmpeg, copied, then tagged by one mutagen run. `work` holds the template.
 */
export async function generateMasters(
  work: string,
  dir: string,
  tracks: number,
): Promise<string[]> {
  const template = join(work, 'template.mp3');
  await makeAudio('mp3', template, { seconds: 0.05 });
  const paths = Array.from({ length: tracks }, (_, i) => masterPath(dir, i));
  await copyTemplate(template, paths);
  await writeTags(paths.map((path, i) => ({ path, family: 'id3v2.4', tags: masterTags(i) })));
  return paths;
}

/**
 * The delivering side's core services over `home`, with the sandbox saved as profile
 * `BENCH_PROFILE` (secrets from the environment, as `courier` reads them).
 */
export async function benchServices(home: string, info: SandboxInfo): Promise<CoreServices> {
  const services = createServices(
    {
      COURIER_HOME: home,
      COURIER_CLIENT_SECRET: info.client_secret,
      COURIER_SECRET_ACCESS_KEY: info.bucket.secret_access_key,
    },
    // The delivering process as `courier deliver` runs it.
    { secrets: new MemorySecretStore(), process: 'batch' },
  );
  await services.profiles.save({
    name: BENCH_PROFILE,
    environment: 'development',
    base_url: info.base_url,
    client_id: info.client_id,
    bucket: {
      bucket_name: info.bucket.bucket_name,
      bucket_region: info.bucket.bucket_region,
      access_key_id: info.bucket.access_key_id,
      endpoint: info.bucket.endpoint,
    },
    catalogs: info.catalogs.map(({ id, name }) => ({ id, name })),
  });
  return services;
}

/** The sandbox info a child gets from its parent (`runChild`). */
export function sandboxInfoOfParent(): SandboxInfo {
  return JSON.parse(process.env.COURIER_BENCH!) as SandboxInfo;
}

/**
 * Runs `script` (a bench's own file) with `args` in a fresh Node process that can reach the
 * sandbox (`sandboxInfoOfParent`), so the child's peak RSS and start-up are its own. Resolves to
 * the last line it writes to stdout, parsed as JSON.
 */
export async function runChild<T>(script: string, args: string[], info: SandboxInfo): Promise<T> {
  const out = await new Promise<string>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { ...process.env, COURIER_BENCH: JSON.stringify(info) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    proc.stdout.on('data', (chunk) => (text += chunk));
    proc.once('error', reject);
    proc.once('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`child exited ${code}`)),
    );
  });
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

/** Asks the sandbox's API for `path` with a fresh token (the token request is logged). */
async function sandboxApi<T>(info: SandboxInfo, path: string, method = 'GET'): Promise<T> {
  return (await sandboxAnswer<T>(info, path, method)).data;
}

/** The whole answer envelope, list fields included. */
async function sandboxAnswer<T>(
  info: SandboxInfo,
  path: string,
  method = 'GET',
): Promise<{ data: T; total_size?: number }> {
  const tokenRes = await fetch(`${info.base_url}/oauth/access_tokens/client`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: info.client_id, client_secret: info.client_secret }),
  });
  const token = ((await tokenRes.json()) as { data: { token: string } }).data.token;
  const res = await fetch(`${info.base_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });
  return (await res.json()) as { data: T; total_size?: number };
}

/**
 * The API requests the sandbox received (its last 1,000), oldest first; the token request this
 * call makes to read them is the last one.
 */
export function sandboxRequests(info: SandboxInfo): Promise<LoggedRequest[]> {
  return sandboxApi(info, '/sandbox/requests');
}

/**
 * How many API requests the sandbox received since its log was cleared, by path and status (all
 * of them, unlike `sandboxRequests`); the token request this call makes is counted.
 */
export function sandboxRequestCounts(info: SandboxInfo): Promise<RequestCounts> {
  return sandboxApi(info, '/sandbox/requests/summary');
}

/** Empties the sandbox's request log (the token request this call makes included). */
export async function clearSandboxRequests(info: SandboxInfo): Promise<void> {
  await sandboxApi(info, '/sandbox/requests', 'DELETE');
}

/**
 * The entries the sandbox holds in `catalogId`, read page by page (each page's token request is
 * logged).
 */
export async function sandboxEntries(info: SandboxInfo, catalogId: string): Promise<Entry[]> {
  const path = `/sandbox/catalogs/${encodeURIComponent(catalogId)}/entries`;
  const entries: Entry[] = [];
  for (;;) {
    const page = await sandboxAnswer<Entry[]>(info, `${path}?offset=${entries.length}`);
    entries.push(...page.data);
    if (page.data.length === 0 || entries.length >= (page.total_size ?? 0)) return entries;
  }
}
