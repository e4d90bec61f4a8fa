/**
 * "Find duplicate audio" through the contract, as the app's Library runs it: main hashes the
 * granted files (by id, never a path from the page), reports progress, and answers groups of
 * ids whose audio is the same though their tags and names differ.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type { Envelope, EventPayloads } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { makeAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const run = promisify(execFile);
const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`duplicate IPC tests need ${missing.join(', ')}`);
  console.warn(`skipping duplicate IPC tests: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('files:duplicates', () => {
  let home: string;
  let services: CoreServices;
  let router: Router;
  const progress: Array<EventPayloads['library:duplicates-progress']> = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-duplicates-'));
    const root = join(home, 'masters');
    await makeAudio('flac', join(root, 'A/01 Original.flac'), {
      seconds: 1,
      metadata: { title: 'Original' },
    });
    // The same audio under another name and other tags (stream copy: the frames are the same).
    await mkdir(join(root, 'B'), { recursive: true });
    await run('ffmpeg', [
      ...['-v', 'error', '-i', join(root, 'A/01 Original.flac'), '-c', 'copy'],
      ...['-map_metadata', '-1', '-metadata', 'title=Retitled'],
      join(root, 'B/Retitled.flac'),
    ]);
    await copyFile(join(root, 'A/01 Original.flac'), join(root, 'B/exact copy.flac'));
    await makeAudio('flac', join(root, 'A/02 Other.flac'), { seconds: 2 });
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter(
      { kind: 'web', locate: async (ref) => [join(root, ref.relativePath)] },
      services,
    );
    router.subscribe((event, payload) => {
      if (event === 'library:duplicates-progress') {
        progress.push(payload as EventPayloads['library:duplicates-progress']);
      }
    });
    for (const name of [
      'A/01 Original.flac',
      'A/02 Other.flac',
      'B/Retitled.flac',
      'B/exact copy.flac',
    ]) {
      ids[name] = (await services.grants.grant(join(root, name))).id;
    }
  }, 60_000);

  afterAll(async () => {
    await services?.connections.closeAll();
    await rm(home, { recursive: true, force: true });
  });

  it('groups the granted files whose audio is the same, with progress', async () => {
    const answer = (await router.dispatch('files:duplicates', {
      ids: Object.values(ids),
    })) as Envelope<{ groups: string[][]; unreadable: unknown[]; bytes: number }>;
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(answer.value.groups.map((g) => [...g].sort())).toEqual([
      [ids['A/01 Original.flac']!, ids['B/Retitled.flac']!, ids['B/exact copy.flac']!].sort(),
    ]);
    expect(answer.value.unreadable).toEqual([]);
    expect(progress.at(-1)).toMatchObject({ phase: 'hashing' });
    expect(progress.at(-1)!.done).toBe(progress.at(-1)!.total);
  });

  it('refuses an id that was never granted', async () => {
    const answer = await router.dispatch('files:duplicates', { ids: ['f'.repeat(24)] });
    expect(answer).toMatchObject({ ok: false });
  });
});
