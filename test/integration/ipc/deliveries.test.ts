import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type {
  DeliveryDetail,
  DeliveryHistoryItem,
  Envelope,
  EventPayloads,
  GrantResult,
  ProfileList,
  TransferSnapshot,
} from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { mergeProgress } from '../../../src-renderer/state/merge-progress.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping delivery IPC tests: missing ${missing.join(', ')}`);

const manual = { kind: 'manual' as const };
const draft = (file: string, outerId?: string): DraftTrack => ({
  file,
  primaryMedia: { value: file, source: manual },
  title: { value: `Title of ${file}`, source: manual },
  ...(outerId ? { outerId: { value: outerId, source: manual } } : {}),
});

describe.skipIf(missing.length > 0)('delivery, bucket and settings operations', () => {
  let home: string;
  let root: string;
  let services: CoreServices;
  let router: Router;
  let catalogId: string;
  let granted: GrantResult['granted'];
  const states: Array<EventPayloads['delivery:state']> = [];
  const progress: Array<EventPayloads['delivery:progress']> = [];
  const waiters: Array<() => void> = [];

  /** Resolves once an event matching `test` has been seen (now or later). */
  const stateSeen = (test: (s: EventPayloads['delivery:state']) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!states.some(test)) return false;
        resolve();
        return true;
      };
      if (!check()) waiters.push(() => void check());
    });

  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const result = (await router.dispatch(channel, request)) as Envelope<T>;
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-deliveries-'));
    root = join(home, 'masters');
    for (const name of ['a.mp3', 'b.mp3', 'c.mp3'])
      await makeAudio('mp3', join(root, 'Album', name));
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter(
      { kind: 'web', locate: async (ref) => [join(root, ref.relativePath)] },
      services,
    );
    router.subscribe((event, payload) => {
      if (event === 'delivery:state') states.push(payload as EventPayloads['delivery:state']);
      if (event === 'delivery:progress')
        progress.push(payload as EventPayloads['delivery:progress']);
      for (const waiter of waiters) waiter();
    });
    const list = await call<ProfileList>('profiles:list', {});
    catalogId = list.profiles[0]!.catalogs[0]!.id;
    const files = ['a.mp3', 'b.mp3', 'c.mp3'].map((name) => ({
      name,
      relativePath: `Album/${name}`,
      size: 1,
      lastModified: 0,
    }));
    // The test's door locates files itself; sizes are checked only against a claim it makes.
    granted = [];
    for (const f of files) {
      const g = await services.grants.grant(join(root, f.relativePath));
      granted.push({ id: g.id, name: f.name, relativePath: f.relativePath, size: g.size });
    }
  }, 60_000);

  afterAll(async () => {
    await services?.connections.closeAll();
    await rm(home, { recursive: true, force: true });
  });

  const input = (outerIds: Array<string | undefined>) => ({
    profile: 'Sandbox',
    catalogId,
    mode: 'json' as const,
    files: granted.map((g, i) => ({
      id: g.id,
      relativePath: g.relativePath,
      draft: draft(g.relativePath, outerIds[i]),
    })),
  });

  it('plans from the reviewed tracks and points a blocking error at its file', async () => {
    const plan = await call<{
      blocked: boolean;
      findings: Array<{ fileId?: string; field?: string }>;
      requests: number;
    }>('deliveries:plan', input(['A', undefined, 'C']));
    expect(plan.blocked).toBe(true);
    expect(plan.findings).toContainEqual(
      expect.objectContaining({ fileId: granted[1]!.id, field: 'outer_id' }),
    );
    const refused = await router.dispatch('deliveries:start', input(['A', undefined, 'C']));
    expect(refused).toMatchObject({ ok: false, error: { code: 'blocked' } });
  });

  it('refuses a file the user never granted', async () => {
    const result = await router.dispatch('deliveries:plan', {
      ...input(['A', 'B', 'C']),
      files: [{ id: 'f'.repeat(24), relativePath: 'x.mp3' }],
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'not_granted' } });
  });

  it('delivers in json mode, reports progress and records every accepted request', async () => {
    const { id } = await call<{ id: string }>(
      'deliveries:start',
      input(['ipc-A', 'ipc-B', 'ipc-C']),
    );
    await stateSeen((s) => s.id === id && !s.running);
    expect(states.filter((s) => s.id === id).at(-1)).toMatchObject({ state: 'accepted' });
    // Each event carries only what changed since the previous one: the view merges them.
    const last = progress
      .filter((p) => p.id === id)
      .reduce<TransferSnapshot | undefined>(mergeProgress, undefined)!;
    expect(last.files.map((f) => f.state)).toEqual(['done', 'done', 'done']);
    expect(last.confirmedBytes).toBe(last.totalBytes);
    const { deliveries } = await call<{ deliveries: DeliveryHistoryItem[] }>('deliveries:list', {});
    const item = deliveries.find((d) => d.id === id)!;
    expect(item).toMatchObject({ state: 'accepted', batches: 1, batches_accepted: 1 });
    const detail = await call<DeliveryDetail>('deliveries:detail', { id });
    expect(detail.requests).toEqual([expect.objectContaining({ state: 'accepted', status: 200 })]);
    const csv = await call<{ csv: string }>('deliveries:exportCsv', {});
    expect(csv.csv).toContain(id);
    const pickup = await call<{ pickedUp: boolean }>('deliveries:pickup', { id });
    expect(pickup.pickedUp).toBe(true);
  }, 60_000);

  it('pauses before any byte moves and finishes after resume', async () => {
    const request = {
      profile: 'Sandbox',
      catalogId,
      mode: 'audio_only' as const,
      files: granted.map((g) => ({ id: g.id, relativePath: g.relativePath })),
    };
    const { id } = await call<{ id: string }>('deliveries:start', request);
    await call('deliveries:pause', { id });
    await stateSeen((s) => s.id === id && s.paused && s.running);
    expect(states.some((s) => s.id === id && !s.running)).toBe(false);
    await call('deliveries:resume', { id });
    await stateSeen((s) => s.id === id && !s.running);
    expect(states.filter((s) => s.id === id).at(-1)).toMatchObject({ state: 'accepted' });
    const unfinished = await call<{ deliveries: unknown[] }>('deliveries:unfinished', {});
    expect(unfinished.deliveries).toEqual([]);
  }, 60_000);

  it('refuses a production profile without confirmation', async () => {
    await call('profiles:save', {
      profile: {
        name: 'Live',
        environment: 'production',
        base_url: 'https://api.example.invalid',
        client_id: 'c',
        bucket: { bucket_name: 'b-prd', bucket_region: 'eu-west-1', access_key_id: 'k' },
        catalogs: [{ id: catalogId, name: 'Main' }],
      },
    });
    const result = await router.dispatch('deliveries:start', {
      ...input(['x', 'y', 'z']),
      profile: 'Live',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'confirm_production' } });
  });

  it('browses the bucket with the §2.6 access of each area and deletes only where writable', async () => {
    const rootListing = await call<{ folders: Array<{ prefix: string; access: string }> }>(
      'bucket:list',
      { profile: 'Sandbox', prefix: '' },
    );
    expect(rootListing.folders).toContainEqual({ prefix: 'delivery/', access: 'read-only' });
    const mapping = await call<{ folders: Array<{ prefix: string; access: string }> }>(
      'bucket:list',
      {
        profile: 'Sandbox',
        prefix: 'delivery/',
      },
    );
    expect(mapping.folders.every((f) => f.access === 'read-write')).toBe(true);
    const refused = await router.dispatch('bucket:delete', {
      profile: 'Sandbox',
      key: 'INFO.json',
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'read_only' } });
  });

  it('keeps settings in settings.json', async () => {
    const set = await call<{ concurrency: number }>('settings:set', {
      concurrency: 3,
      defaults: { delete_delivered_file: false },
    });
    expect(set).toMatchObject({ concurrency: 3, bandwidthLimitKiB: 0 });
    expect(await call('settings:get', {})).toMatchObject({
      concurrency: 3,
      defaults: { delete_delivered_file: false, overwrite_audio_file: true },
    });
  });
});
