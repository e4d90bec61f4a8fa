/**
 * Issue #14 through the app's door: a service that echoes the bearer token back must not get it
 * into any IPC result, error envelope or event the renderer receives.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type { Envelope, EventPayloads } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { startEchoingService } from '../../fakes/echoing-service.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

const missing = missingFixtureTools();
const manual = { kind: 'manual' as const };

describe.skipIf(missing.length > 0)('the app with a service that echoes the bearer token', () => {
  const token = `tok_${randomBytes(24).toString('hex')}`;
  let sandbox: TestSandbox;
  let service: Awaited<ReturnType<typeof startEchoingService>>;
  let home: string;
  let services: CoreServices;
  let router: Router;
  /** Everything the renderer was sent: results, error envelopes and events. */
  const seen: unknown[] = [];
  const states: Array<EventPayloads['delivery:state']> = [];

  const dispatch = async (channel: string, request: unknown): Promise<Envelope<unknown>> => {
    const result = (await router.dispatch(channel, request)) as Envelope<unknown>;
    seen.push(result);
    return result;
  };

  /** Resolves once the delivery `id` stopped running. */
  const finished = (id: string) =>
    new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (states.some((s) => s.id === id && !s.running)) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
    });

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    service = await startEchoingService(token);
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-redaction-'));
    const root = join(home, 'masters');
    await makeAudio('mp3', join(root, 'one.mp3'));
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter(
      { kind: 'web', locate: async (ref) => [join(root, ref.relativePath)] },
      services,
    );
    router.subscribe((event, payload) => {
      seen.push({ event, payload });
      if (event === 'delivery:state') states.push(payload as EventPayloads['delivery:state']);
    });
    const { info } = sandbox;
    const saved = await dispatch('profiles:save', {
      profile: {
        name: 'Echo',
        environment: 'development',
        base_url: service.url,
        client_id: 'echo-client',
        bucket: {
          bucket_name: info.bucket.bucket_name,
          bucket_region: info.bucket.bucket_region,
          access_key_id: info.bucket.access_key_id,
          endpoint: info.bucket.endpoint,
        },
        catalogs: [{ id: info.catalogs[0]!.id, name: 'Main' }],
      },
      secrets: {
        client_secret: 'echo-client-secret-value',
        secret_access_key: info.bucket.secret_access_key,
      },
    });
    expect(saved.ok).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await services?.connections.closeAll();
    await service?.stop();
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('keeps it out of every result, error and event', async () => {
    const grant = await services.grants.grant(join(home, 'masters', 'one.mp3'));
    const input = (outerId: string) => ({
      profile: 'Echo',
      catalogId: sandbox.info.catalogs[0]!.id,
      mode: 'json' as const,
      files: [
        {
          id: grant.id,
          relativePath: 'one.mp3',
          draft: {
            file: 'one.mp3',
            primaryMedia: { value: 'one.mp3', source: manual },
            title: { value: 'One', source: manual },
            outerId: { value: outerId, source: manual },
          } satisfies DraftTrack,
        },
      ],
    });
    // The first ingestion is answered 200 with the echo, the second 500 with it.
    const ids: string[] = [];
    for (const outerId of ['echo-1', 'echo-2']) {
      const started = await dispatch('deliveries:start', input(outerId));
      expect(started.ok).toBe(true);
      ids.push((started as { value: { id: string } }).value.id);
      await finished(ids.at(-1)!);
    }
    expect(states.at(-1)).toMatchObject({ state: 'failed' });
    await dispatch('deliveries:list', {});
    for (const id of ids) await dispatch('deliveries:detail', { id });
    await dispatch('deliveries:exportCsv', {});
    await dispatch('deliveries:unfinished', {});

    const everything = JSON.stringify(seen);
    // The echoes did come through (redacted), so the check below is not vacuous.
    expect(everything).toContain('[redacted]');
    for (const secret of [token, 'echo-client-secret-value', sandbox.info.bucket.secret_access_key])
      expect(everything.includes(secret)).toBe(false);
  }, 90_000);
});
