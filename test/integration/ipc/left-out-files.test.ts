import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type { DeliveryPlanView, Envelope, ProfileList } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping left-out IPC tests: missing ${missing.join(', ')}`);

const manual = { kind: 'manual' as const };
const draft = (file: string, outerId: string, isrc?: string): DraftTrack => ({
  file,
  primaryMedia: { value: file, source: manual },
  title: { value: `Title of ${file}`, source: manual },
  outerId: { value: outerId, source: manual },
  ...(isrc ? { isrc: { value: isrc, source: manual } } : {}),
});

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe.skipIf(missing.length > 0)(
  'the pre-flight of a library with files it cannot deliver',
  () => {
    let home: string;
    let root: string;
    let services: CoreServices;
    let router: Router;
    let catalogId: string;
    const ids = new Map<string, string>();

    const call = async <T>(channel: string, request: unknown): Promise<T> => {
      const result = (await router.dispatch(channel, request)) as Envelope<T>;
      if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
      return result.value;
    };

    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'courier-ipc-left-out-'));
      root = join(home, 'masters');
      await makeAudio('mp3', join(root, 'Album', '01 Open.mp3'));
      await makeAudio('mp3', join(root, 'Album', '02 Drift.mp3'));
      await writeFile(join(root, 'Album', '03 Empty.mp3'), '');
      await writeFile(join(root, 'Album', '04 Noise.mp3'), Buffer.alloc(4096, 7));
      await makeAudio('mp3', join(root, 'Album', '05 Gone.mp3'));
      services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
      router = createRouter(
        { kind: 'web', locate: async (ref) => [join(root, ref.relativePath)] },
        services,
      );
      catalogId = (await call<ProfileList>('profiles:list', {})).profiles[0]!.catalogs[0]!.id;
      for (const name of [
        '01 Open.mp3',
        '02 Drift.mp3',
        '03 Empty.mp3',
        '04 Noise.mp3',
        '05 Gone.mp3',
      ]) {
        ids.set(name, (await services.grants.grant(join(root, 'Album', name))).id);
      }
    }, 60_000);

    afterAll(async () => {
      await services?.connections.closeAll();
      await rm(home, { recursive: true, force: true });
    });

    const file = (name: string, outerId: string, isrc?: string) => ({
      id: ids.get(name)!,
      relativePath: `Album/${name}`,
      draft: draft(`Album/${name}`, outerId, isrc),
    });

    it('names each library file it leaves out and why, and plans the rest', async () => {
      const plan = await call<DeliveryPlanView>('deliveries:plan', {
        profile: 'Sandbox',
        catalogId,
        mode: 'json',
        files: [
          file('01 Open.mp3', 'T-1'),
          file('02 Drift.mp3', 'T-2'),
          file('03 Empty.mp3', 'T-3'),
          file('04 Noise.mp3', 'T-4'),
          { ...file('05 Gone.mp3', 'T-5'), missing: true },
        ],
      });
      expect(plan.blocked).toBe(false);
      expect(plan.files).toBe(2);
      const line = plan.findings[0]!;
      expect(line.level).toBe('warning');
      expect(line.message).toMatch(
        /^3 files left out: 03 Empty\.mp3 is empty \(0 bytes\); 04 Noise\.mp3 can't be delivered: .+; 05 Gone\.mp3 is gone or changed since it was added \(add it again to deliver it\)$/,
      );
      // Each one is also pointed at its row.
      expect(plan.findings).toContainEqual(
        expect.objectContaining({
          fileId: ids.get('03 Empty.mp3'),
          message: 'not delivered: it is empty (0 bytes)',
        }),
      );
    }, 60_000);

    it('says nothing is left out when every file can be delivered', async () => {
      const plan = await call<DeliveryPlanView>('deliveries:plan', {
        profile: 'Sandbox',
        catalogId,
        mode: 'json',
        files: [file('01 Open.mp3', 'T-1'), file('02 Drift.mp3', 'T-2')],
      });
      expect(plan.findings.filter((f) => f.message.includes('left out'))).toEqual([]);
      expect(plan.leftOut).toBeUndefined();
    }, 60_000);

    it('shows a NUL read from a tag as \\u0000 in the message quoting it', async () => {
      const plan = await call<DeliveryPlanView>('deliveries:plan', {
        profile: 'Sandbox',
        catalogId,
        mode: 'json',
        files: [file('01 Open.mp3', 'T-1', 'GBAYE2100101\u0000'), file('02 Drift.mp3', 'T-2')],
      });
      const isrc = plan.findings.find((f) => f.message.startsWith('ISRC'))!;
      expect(isrc.message).toBe(
        "ISRC 'GBAYE2100101\\u0000' is not valid: expected CC-XXX-YY-NNNNN (12 characters)",
      );
      for (const finding of plan.findings) expect(finding.message).not.toMatch(CONTROL);
    }, 60_000);
  },
);
