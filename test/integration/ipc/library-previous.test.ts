/**
 * A library emptied by mistake can be restored even after a restart (#18): a save that leaves
 * fewer tracks than the session held keeps that session, and restoring swaps it back, granting
 * its files again. Through the contract, with real files and grants.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readHeader } from '../../../src-main/core/library/session-base.js';
import type { LibrarySession } from '../../../src-main/core/library/session-schema.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../../src-main/core/services.js';
import type { SentLoad } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { sessionRow } from '../../support/session-rows.js';

describe('the library kept before it was emptied', () => {
  let home: string;
  let ids: string[];
  const data = () => join(home, 'data');
  const routerNow = (): Router =>
    // A new router and services each time: a restart of the app.
    createRouter(
      { kind: 'electron', locate: async () => [] },
      createServices({ COURIER_HOME: data() }, { secrets: new MemorySecretStore() }),
    );
  const sessionOf = (rowIds: string[]): LibrarySession => ({
    version: 1,
    rows: rowIds.map((id, i) => sessionRow(id, `Track ${i + 1}`, { file: `Album/0${i + 1}.flac` })),
    ignored: [],
  });
  const value = (answer: unknown) => (answer as { ok: true; value: SentLoad }).value;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-previous-'));
    await mkdir(join(home, 'Album'), { recursive: true });
    const services = createServices({ COURIER_HOME: data() }, { secrets: new MemorySecretStore() });
    ids = [];
    for (const name of ['01.flac', '02.flac', '03.flac']) {
      await writeFile(join(home, 'Album', name), 'audio');
      ids.push((await services.grants.grant(join(home, 'Album', name))).id);
    }
    // Saved by the run that granted them, so the session names their paths.
    const granted = createRouter({ kind: 'electron', locate: async () => [] }, services);
    await granted.dispatch('library:save', { session: sessionOf(ids) });
  });

  afterAll(() => rm(home, { recursive: true, force: true }));

  it('offers nothing while the library only grew', async () => {
    expect(value(await routerNow().dispatch('library:load', {})).previous).toBeNull();
  });

  it('keeps the 3-track library when Clear saves an empty one, and says so after a restart', async () => {
    await routerNow().dispatch('library:save', { session: sessionOf([]) });
    const loaded = value(await routerNow().dispatch('library:load', {}));
    expect(loaded.session?.rows).toEqual([]);
    expect(loaded.previous).toMatchObject({ tracks: 3 });
    expect(Date.parse(loaded.previous!.savedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('restores it with its files granted again, keeping the emptied one in its place', async () => {
    const router = routerNow();
    const checked = new Promise<{ missing: string[]; checked: number; total: number }>(
      (resolve) => {
        const missing: string[] = [];
        router.subscribe((event, payload) => {
          if (event !== 'library:files-checked') return;
          const batch = payload as { missing: string[]; checked: number; total: number };
          missing.push(...batch.missing);
          if (batch.checked >= batch.total) resolve({ ...batch, missing });
        });
      },
    );
    const restored = value(await router.dispatch('library:restore-previous', {}));
    expect(restored.session?.rows.map((r) => r.draft.title?.value)).toEqual([
      'Track 1',
      'Track 2',
      'Track 3',
    ]);
    expect(await checked).toMatchObject({ missing: [], checked: 3, total: 3 });
    // The emptied library is what is kept now, and it holds fewer tracks: nothing to offer.
    expect(restored.previous).toBeNull();
  });

  it('says clearly when there is nothing to restore', async () => {
    const other = await mkdtemp(join(tmpdir(), 'courier-previous-none-'));
    const router = createRouter(
      { kind: 'electron', locate: async () => [] },
      createServices({ COURIER_HOME: other }, { secrets: new MemorySecretStore() }),
    );
    await expect(router.dispatch('library:restore-previous', {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'not_found', message: 'There is no earlier library to restore.' },
    });
    await rm(other, { recursive: true, force: true });
  });

  describe('a restore stopped by kill -9, and two at once', () => {
    const file = (name: string) => join(data(), 'library', name);
    const titles = (loaded: SentLoad) => loaded.session?.rows.map((r) => r.draft.title?.value);

    it('after the first rename: the next load puts the kept library back, still offered', async () => {
      // Now: current holds 0 tracks, the kept one 3 (the test before restored, then empty it).
      await routerNow().dispatch('library:save', { session: sessionOf([]) });
      await rename(file('session.previous.jsonl'), file('session.swap.jsonl'));
      const loaded = value(await routerNow().dispatch('library:load', {}));
      expect(loaded.session?.rows).toEqual([]);
      expect(loaded.previous).toMatchObject({ tracks: 3 });
    });

    it('after the second rename: the next load finishes the restore', async () => {
      await rename(file('session.previous.jsonl'), file('session.swap.jsonl'));
      await rename(file('session.jsonl'), file('session.previous.jsonl'));
      const loaded = value(await routerNow().dispatch('library:load', {}));
      expect(titles(loaded)).toEqual(['Track 1', 'Track 2', 'Track 3']);
    });

    it('a save and a restore sent together run one after the other, losing neither', async () => {
      const router = routerNow();
      await router.dispatch('library:save', { session: sessionOf([]) });
      const [saved, restored] = await Promise.all([
        router.dispatch('library:save', { session: sessionOf([ids[0]!]) }),
        router.dispatch('library:restore-previous', {}),
      ]);
      expect(saved).toMatchObject({ ok: true });
      expect(titles(value(restored))).toEqual(['Track 1', 'Track 2', 'Track 3']);
      // The one-track library saved first is the one kept now.
      expect((await readHeader(file('session.previous.jsonl')))?.rows).toBe(1);
    });
  });
});
