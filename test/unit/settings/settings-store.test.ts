import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { SettingsStore } from '../../../src-main/core/settings/settings-store.js';

describe('SettingsStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-settings-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps every change made at once (none lost to another write)', async () => {
    const store = new SettingsStore(dir);
    await Promise.all([
      store.set({ concurrency: 3 }),
      store.set({ bandwidthLimitKiB: 512 }),
      ...['A', 'B', 'C', 'D'].map((profile) =>
        store.set({
          profileDefaults: {
            profile,
            defaults: {
              mode: 'audio_only',
              overwrite_audio_file: false,
              delete_delivered_file: false,
            },
          },
        }),
      ),
    ]);
    const saved = JSON.parse(await readFile(store.file, 'utf8'));
    expect(saved.concurrency).toBe(3);
    expect(saved.bandwidthLimitKiB).toBe(512);
    expect(Object.keys(saved.profileDefaults).sort()).toEqual(['A', 'B', 'C', 'D']);
  });

  it('checks a hand-edited file with the rules it saves by: wrong values fall back', async () => {
    await writeFile(
      join(dir, 'settings.json'),
      JSON.stringify({ concurrency: 9999, bandwidthLimitKiB: -1, defaults: { mode: 'ftp' } }),
    );
    const settings = await new SettingsStore(dir).get();
    expect(settings.concurrency).toBe(8);
    expect(settings.bandwidthLimitKiB).toBe(0);
    expect(settings.defaults.mode).toBe('json');
  });
});
