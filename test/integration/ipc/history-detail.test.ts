/**
 * History's list and a delivery's detail over the contract, as the renderer calls them (#20): a
 * delivery of many requests lists as small as one of a single request, and its requests with
 * every answer of the service come when the user opens it, a page at a time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type DeliveryRecord,
  DeliveryStore,
} from '../../../src-main/core/delivery/delivery-record.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../../src-main/core/services.js';
import type {
  DeliveryDetail,
  DeliveryHistoryItem,
  Envelope,
} from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';

const BIG = '20260301-100000-b1b1b1';
const SMALL = '20260301-110000-5a5a5a';
const REQUESTS = 1_200;

/** A json delivery of `batches` requests of 25 tracks, each answered as the sandbox does. */
function recordOf(id: string, batches: number): DeliveryRecord {
  return {
    version: 1,
    id,
    identity: id,
    state: 'ingesting',
    profile: 'Label',
    environment: 'development',
    bucket: 'bucket',
    catalogId: 'cat-1',
    mode: 'json',
    dir: '/masters',
    folder: id,
    options: {
      ingestion_id: id,
      overwrite_audio_file: true,
      delete_delivered_file: true,
      media_fetch_type: 's3',
    },
    files: [],
    batches: Array.from({ length: batches }, (_, index) => {
      const outerIds = Array.from({ length: 25 }, (_, j) => `T-${index}-${j}`);
      return {
        index,
        outerIds,
        keys: outerIds.map((o) => `delivery/audio/${id}/${o}.mp3`),
        state: 'accepted' as const,
        attempts: 1,
        response: {
          status: 200,
          body: {
            ingestion_id: id,
            count: 25,
            entries: outerIds.map((outer_id) => ({ outer_id, state: 'stored' })),
          },
        },
      };
    }),
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '',
    runs: 1,
    durations: { uploadMs: 0, confirmMs: 0, ingestMs: 0 },
    bytes: { total: 0, sent: 0 },
  };
}

describe('History’s list and a delivery’s detail over the contract', () => {
  let home: string;
  let router: Router;

  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const result = (await router.dispatch(channel, request)) as Envelope<T>;
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-history-detail-'));
    const services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter({ kind: 'web', locate: async () => [] }, services);
    const store = new DeliveryStore(home);
    // The big one as a run leaves it: half its requests' states in the main file, half in the
    // journal, every answer in the answers file; its last request refused with a long,
    // several-line error.
    const big = recordOf(BIG, REQUESTS);
    const last = big.batches.at(-1)!;
    last.state = 'pending';
    delete last.response;
    await store.save(big);
    for (const batch of big.batches.slice(REQUESTS / 2, -1)) await store.saveBatch(big, batch);
    last.state = 'failed';
    last.error = `the service refused request ${REQUESTS}: ${'field outer_id is invalid; '.repeat(40)}\nsecond line`;
    last.response = { status: 400, body: { error: 'invalid', detail: last.error } };
    await store.saveBatch(big, last);
    big.state = 'failed';
    big.error = `batch ${REQUESTS} of ${REQUESTS} failed: ${last.error}`;
    await store.save(big);
    await store.save({ ...recordOf(SMALL, 1), state: 'accepted' });
  });

  afterAll(() => rm(home, { recursive: true, force: true }));

  it('lists a delivery of many requests as small as one of a single request', async () => {
    const list = await call<{ deliveries: DeliveryHistoryItem[] }>('deliveries:list', {});
    expect(list.deliveries.map((d) => d.id)).toEqual([SMALL, BIG]);
    const [small, big] = list.deliveries.map((d) => JSON.stringify(d).length);
    expect(big).toBeLessThan(2_048);
    // Only the counts and the short error differ: nothing grows with the requests.
    expect(big! - small!).toBeLessThan(400);
    expect(list.deliveries[1]).toMatchObject({
      state: 'failed',
      batches: REQUESTS,
      batches_accepted: REQUESTS - 1,
      batches_failed: 1,
      catalog_name: 'cat-1',
      running: false,
    });
    expect(list.deliveries[1]!.error).toMatch(/^batch 1200 of 1200 failed: the service refused/);
    expect(list.deliveries[1]!.error).toMatch(/…$/);
    expect(list.deliveries[1]!.error).not.toContain('second line');
    expect(Object.keys(list.deliveries[1]!)).not.toContain('requests');
    // Transfers' list of unfinished deliveries is as small.
    const unfinished = await call<{ deliveries: DeliveryHistoryItem[] }>(
      'deliveries:unfinished',
      {},
    );
    expect(JSON.stringify(unfinished).length).toBeLessThan(2_048);
  });

  it('gives every request with its answer when the delivery is opened, a page at a time', async () => {
    const requests: DeliveryDetail['requests'] = [];
    let page: DeliveryDetail;
    let pages = 0;
    do {
      page = await call<DeliveryDetail>('deliveries:detail', { id: BIG, offset: requests.length });
      expect(page.offset).toBe(requests.length);
      expect(page.requests.length).toBeGreaterThan(0);
      requests.push(...page.requests);
      pages++;
    } while (requests.length < page.total);
    expect(page.total).toBe(REQUESTS);
    expect(pages).toBeGreaterThan(1);
    expect(requests.map((r) => r.index)).toEqual([...Array(REQUESTS).keys()]);
    expect(requests[0]).toEqual({
      index: 0,
      state: 'accepted',
      tracks: 25,
      attempts: 1,
      status: 200,
      body: expect.objectContaining({ count: 25, entries: expect.any(Array) }),
    });
    expect(
      requests.filter((r) => r.status === 200 && (r.body as { count: number }).count === 25),
    ).toHaveLength(REQUESTS - 1);
    const refused = requests.at(-1)!;
    expect(refused).toMatchObject({ state: 'failed', status: 400 });
    expect(refused.error).toContain('second line');
    // The error in full, where the list had its first line.
    expect(page.error).toContain('second line');

    const one = await call<DeliveryDetail>('deliveries:detail', { id: BIG, offset: 10, limit: 2 });
    expect(one.requests.map((r) => r.index)).toEqual([10, 11]);
  });

  it('says which delivery it does not know, and refuses a page larger than allowed', async () => {
    expect(await router.dispatch('deliveries:detail', { id: '20990101-000000-000000' })).toEqual({
      ok: false,
      error: {
        code: 'not_found',
        message: 'No delivery 20990101-000000-000000 in the history.',
      },
    });
    for (const request of [
      { id: BIG, limit: 100_000 },
      { id: BIG, offset: -1 },
      { id: '../secret' },
    ]) {
      expect(await router.dispatch('deliveries:detail', request)).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
    }
  });
});
