import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ApiError } from '../../../src-main/core/api/api-error.js';
import {
  ServiceClient,
  type ServiceClientOptions,
} from '../../../src-main/core/api/service-client.js';
import { prng } from '../../support/prng.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

/** The sandbox's log of requests, read with a client of its own (tokens here are short-lived). */
async function loggedStatuses(sandbox: TestSandbox): Promise<number[]> {
  const client = clientFor(sandbox, { retries: 10 });
  const token = await client.tokens.get();
  const response = await fetch(`${sandbox.info.base_url}/sandbox/requests`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { data: Array<{ status: number; path: string }> };
  return body.data.filter((r) => !r.path.startsWith('/sandbox/')).map((r) => r.status);
}

const clientFor = (sandbox: TestSandbox, overrides: Partial<ServiceClientOptions> = {}) =>
  new ServiceClient({
    baseUrl: sandbox.info.base_url,
    clientId: sandbox.info.client_id,
    clientSecret: async () => sandbox.info.client_secret,
    backoffBaseMs: 5,
    ...overrides,
  });

describe('ServiceClient against the sandbox', () => {
  let sandbox: TestSandbox;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());

  describe('tokens', () => {
    it('refuses a wrong secret with a clear, typed error', async () => {
      const client = clientFor(sandbox, { clientSecret: async () => 'Not-The-S3cret-4711' });
      const error = await client.verifyCredentials().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        code: 'bad_credentials',
        status: 401,
        endpoint: 'POST /oauth/access_tokens/client',
      });
      expect((error as Error).message).toMatch(/client_id and client_secret/);
      expect((error as Error).message).not.toContain('Not-The-S3cret-4711');
    });

    it('makes one token request for a burst of concurrent calls', async () => {
      const client = clientFor(sandbox);
      const pages = await Promise.all(
        Array.from({ length: 20 }, () => client.listTags({ limit: 1 })),
      );
      expect(pages.every((page) => page.size === 1)).toBe(true);
      expect(client.tokenRequests).toBe(1);
    });
  });

  describe('lexicology', () => {
    it('combines filters and reads every matching tag', async () => {
      const client = clientFor(sandbox);
      const moods = await client.listAllTags({ category_name: 'Mood' });
      expect(moods.complete).toBe(true);
      expect(moods.tags.length).toBe(moods.total);
      expect(moods.tags.every((tag) => tag.category.name === 'Mood')).toBe(true);
      const dark = await client.listTags({ category_name: 'Mood', name: 'dark', limit: 50 });
      expect(dark.tags.every((tag) => /dark/i.test(tag.name))).toBe(true);
      expect(dark.total_size).toBeLessThan(moods.total);
    });
  });

  describe('ingestion', () => {
    it('refuses more than 25 tracks before sending anything', async () => {
      const client = clientFor(sandbox);
      const tracks = Array.from({ length: 26 }, (_, i) => ({
        outer_id: `t${i}`,
        primary_media: 'x.flac',
      }));
      await expect(
        client.ingestJson(tracks, { catalog_id: sandbox.info.catalogs[0]!.id }),
      ).rejects.toMatchObject({ code: 'bad_request', status: 0 });
      expect(client.tokenRequests).toBe(0);
    });

    it('surfaces the service’s error verbatim for an unknown catalog', async () => {
      const client = clientFor(sandbox);
      const error = await client
        .ingestAudioOnly({
          catalog_id: '00000000-0000-4000-8000-000000000000',
          delivery_dir_path: 'x',
        })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'not_found',
        status: 404,
        endpoint: 'POST /ingestion/audio_only',
      });
      expect((error as ApiError).body).toBeTruthy();
    });
  });

  describe('network', () => {
    it('reports a host that never answers as unreachable, naming it, after its retries', async () => {
      const client = clientFor(sandbox, { baseUrl: 'http://127.0.0.1:9', retries: 1 });
      await expect(client.listTags()).rejects.toMatchObject({
        code: 'unreachable',
        status: 0,
        message: expect.stringMatching(/Can't reach the service at 127\.0\.0\.1:9 .*base URL/),
      });
    });
  });
});

describe('ServiceClient with short-lived tokens', () => {
  let sandbox: TestSandbox;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    sandbox = await startTestSandbox({ tokenLifetimeMs: 1500 });
  });
  afterAll(() => sandbox.close());

  const unauthorizedCount = async () =>
    (await loggedStatuses(sandbox)).filter((status) => status === 401).length;

  it('renews ahead of expiry, so no call is refused', async () => {
    const before = await unauthorizedCount();
    const client = clientFor(sandbox);
    for (let i = 0; i < 8; i++) {
      await client.listTags({ limit: 1 });
      await pause(300);
    }
    expect(client.tokenRequests).toBeGreaterThanOrEqual(2);
    expect(await unauthorizedCount()).toBe(before);
  });

  it('renews once and retries when the service refuses a token it believed alive', async () => {
    // A client whose clock stands still never sees its token age: only the 401 tells it.
    const frozen = Date.now();
    const client = clientFor(sandbox, { now: () => frozen });
    await client.listTags({ limit: 1 });
    await pause(1700);
    const page = await client.listTags({ limit: 1 });
    expect(page.size).toBe(1);
    expect(client.tokenRequests).toBe(2);
  });
});

describe('ServiceClient with faults', () => {
  let sandbox: TestSandbox;

  beforeAll(async () => {
    sandbox = await startTestSandbox({
      tokenLifetimeMs: 1500,
      faults: { errorRate: 0.25, throttleRate: 0.2 },
      random: prng(7),
    });
  });
  afterAll(() => sandbox.close());

  it('keeps working across 500s, 429s and token expiry', async () => {
    const client = clientFor(sandbox, { retries: 8 });
    for (let i = 0; i < 12; i++) {
      const page = await client.listTags({ limit: 2 });
      expect(page.size).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // 12 calls over ~2.4 s with a 1.5 s token: renewed ahead of expiry at least once.
    expect(client.tokenRequests).toBeGreaterThanOrEqual(2);
    const statuses = await loggedStatuses(sandbox);
    expect(statuses).toContain(500);
    expect(statuses).toContain(429);
    expect(statuses).not.toContain(401);
  });
});
