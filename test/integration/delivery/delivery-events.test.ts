/**
 * The delivery operations through the router, as the app's views use them: progress events that
 * carry only what changed, catalog names, and retrying a failed file.
 */
import { renameSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FILES_SHOWN } from '../../../src-main/core/delivery/transfer-snapshot.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type {
  DeliveryDetail,
  DeliveryHistoryItem,
  Envelope,
  EventPayloads,
  ProfileList,
  TransferSnapshot,
} from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { mergeProgress } from '../../../src-renderer/state/merge-progress.js';
import { copyTemplate, makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0)
  console.warn(`Skipping delivery event tests: missing ${missing.join(', ')}`);

const manual = { kind: 'manual' as const };
const draft = (file: string, outerId: string): DraftTrack => ({
  file,
  primaryMedia: { value: file, source: manual },
  title: { value: `Title of ${file}`, source: manual },
  outerId: { value: outerId, source: manual },
});

describe.skipIf(missing.length > 0)('delivery operations and events', () => {
  let home: string;
  let root: string;
  let services: CoreServices;
  let router: Router;
  let catalog: { id: string; name: string };
  const progress: Array<EventPayloads['delivery:progress']> = [];
  const states: Array<EventPayloads['delivery:state']> = [];
  /** Called (synchronously) with each state event, before the run does anything else. */
  let onState: ((state: EventPayloads['delivery:state']) => void) | undefined;
  const waiters = new Set<() => void>();

  /** Resolves once delivery `id` has ended (now or later). */
  const ended = (id: string) =>
    new Promise<EventPayloads['delivery:state']>((resolve) => {
      const check = () => {
        const last = states.filter((s) => s.id === id).at(-1);
        if (last && !last.running) {
          waiters.delete(check);
          resolve(last);
        }
      };
      waiters.add(check);
      check();
    });

  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const result = (await router.dispatch(channel, request)) as Envelope<T>;
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };

  /** `count` granted copies of one tiny MP3 under `<root>/<folder>/`, as json-mode input. */
  async function library(folder: string, count: number) {
    const template = join(home, `${folder}.template.mp3`);
    await makeAudio('mp3', template, { seconds: 0.1 });
    const relative = Array.from(
      { length: count },
      (_, i) => `${folder}/${String(i + 1).padStart(4, '0')}.mp3`,
    );
    await copyTemplate(
      template,
      relative.map((r) => join(root, r)),
    );
    const files = [];
    for (const [i, relativePath] of relative.entries()) {
      const granted = await services.grants.grant(join(root, relativePath));
      files.push({
        id: granted.id,
        relativePath,
        draft: draft(relativePath, `${folder}-${i + 1}`),
      });
    }
    return {
      profile: 'Sandbox',
      catalogId: catalog.id,
      mode: 'json' as const,
      folder: `${folder.toLowerCase()}-${Date.now()}`,
      files,
    };
  }

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-delivery-events-'));
    root = join(home, 'masters');
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter(
      { kind: 'web', locate: async (ref) => [join(root, ref.relativePath)] },
      services,
    );
    router.subscribe((event, payload) => {
      if (event === 'delivery:progress')
        progress.push(payload as EventPayloads['delivery:progress']);
      if (event === 'delivery:state') {
        states.push(payload as EventPayloads['delivery:state']);
        onState?.(payload as EventPayloads['delivery:state']);
      }
      for (const waiter of [...waiters]) waiter();
    });
    const list = await call<ProfileList>('profiles:list', {});
    catalog = list.profiles.find((p) => p.name === 'Sandbox')!.catalogs[0]!;
    expect(catalog.name).not.toBe(catalog.id);
  }, 120_000);

  afterAll(async () => {
    await services?.connections.closeAll();
    await rm(home, { recursive: true, force: true });
  });

  it('a 2,000-file delivery lists 500 files, counts them all, and sends the list only when it changed', async () => {
    const input = await library('Big', 2_000);
    const { id } = await call<{ id: string }>('deliveries:start', input);
    expect((await ended(id)).state).toBe('accepted');

    const events = progress.filter((p) => p.id === id);
    expect(events[0]!.complete).toBe(true);
    expect(events[0]!.files).toHaveLength(FILES_SHOWN);
    expect(events[0]!.fileCounts.queued + events[0]!.fileCounts.uploading).toBe(2_000);
    expect(events[0]!.catalogName).toBe(catalog.name);
    // Every later event is partial: the files listed come only when they differ from what the
    // renderer held, and each request it carries differs too. No event carries more than 500.
    let view: TransferSnapshot | undefined;
    let listings = 0;
    for (const [n, event] of events.entries()) {
      expect(event.files?.length ?? 0).toBeLessThanOrEqual(FILES_SHOWN);
      const counted = Object.values(event.fileCounts).reduce((a, b) => a + b, 0);
      expect(counted).toBe(2_000);
      if (n > 0) {
        expect(event.complete).toBe(false);
        if (event.files) {
          listings += 1;
          expect(event.files).not.toEqual(view!.files);
        }
        for (const batch of event.batches) expect(batch).not.toEqual(view!.batches[batch.index]);
      }
      view = mergeProgress(view, event);
    }
    expect(listings).toBeLessThan(events.length);
    // Merged, they make the picture main holds: every file done, every request accepted.
    expect(view!.fileCounts).toEqual({
      queued: 0,
      uploading: 0,
      verifying: 0,
      done: 2_000,
      failed: 0,
    });
    expect(view!.files.every((f) => f.state === 'done' && f.confirmedBytes === f.size)).toBe(true);
    expect(view!.files.map((f) => f.path)).toEqual(
      input.files.slice(0, FILES_SHOWN).map((f) => basename(f.relativePath)),
    );
    expect(view!.batches.map((b) => b.state)).toEqual(Array(80).fill('accepted'));
    const { transfers } = await call<{ transfers: TransferSnapshot[] }>('deliveries:active', {});
    expect(view).toEqual(transfers.find((t) => t.id === id));
  }, 900_000);

  it('retries one failed file from its record; History names the catalog and shows the retry', async () => {
    const input = await library('Retry', 30);
    const away = join(root, input.files[27]!.relativePath);
    // Planned with the file, which then goes away as the run starts: its upload fails.
    onState = (state) => {
      if (!state.running) return;
      renameSync(away, `${away}.away`);
      onState = undefined;
    };
    const { id } = await call<{ id: string }>('deliveries:start', input);
    const first = await ended(id);
    expect(first.state).toBe('failed');
    expect(first.error).toMatch(/1 file\(s\) could not be uploaded.*0028\.mp3/);
    // Each file reads done once the bucket confirmed it — while requests are being sent, and
    // after the run, also for the four whose request waits for 0028 — never left at verifying.
    let view: TransferSnapshot | undefined;
    for (const event of progress.filter((p) => p.id === id)) {
      view = mergeProgress(view, event);
      if (view.phase !== 'ingest') continue;
      const states = new Set(view.files.map((f) => f.state));
      expect([...states].sort()).toEqual(['done', 'failed']);
    }
    expect(view!.fileCounts).toEqual({
      queued: 0,
      uploading: 0,
      verifying: 0,
      done: 29,
      failed: 1,
    });
    expect(view!.files[0]).toMatchObject({ path: '0028.mp3', state: 'failed' });
    expect(states.filter((s) => s.id === id).every((s) => s.finishing === 0)).toBe(true);

    const list = async () =>
      (await call<{ deliveries: DeliveryHistoryItem[] }>('deliveries:list', {})).deliveries.find(
        (d) => d.id === id,
      )!;
    const detail = () => call<DeliveryDetail>('deliveries:detail', { id });
    expect((await detail()).requests.map((r) => r.state)).toEqual(['accepted', 'pending']);

    // A file that did not fail is refused; the failed one is retried once it is readable again.
    const failedKey = (
      await call<{ transfers: TransferSnapshot[] }>('deliveries:active', {})
    ).transfers
      .find((t) => t.id === id)!
      .files.find((f) => f.state === 'failed')!.key;
    const refused = await router.dispatch('deliveries:retry', {
      id,
      keys: [failedKey.replace('0028', '0001')],
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'not_failed' } });
    await rename(`${away}.away`, away);
    states.length = 0;
    expect(await call('deliveries:retry', { id, keys: [failedKey] })).toEqual({ id, files: 1 });
    expect((await ended(id)).state).toBe('accepted');

    const item = await list();
    expect(item.catalog_name).toBe(catalog.name);
    const opened = await detail();
    expect(opened.requests.map((r) => [r.state, r.attempts])).toEqual([
      ['accepted', 1],
      ['accepted', 1],
    ]);
    expect(opened.retries).toEqual([
      { at: expect.any(String), run: 2, count: 1, files: ['0028.mp3'] },
    ]);
  }, 300_000);
});
