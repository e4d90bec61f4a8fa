/**
 * Reopening a saved library (#20): its rows come at once, before main has checked its files on
 * disk; the checks follow as events, and a file gone or changed since it was added is still
 * marked. Through the contract, with real files and grants.
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { LibrarySession } from '../../../src-main/core/library/session-schema.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../../src-main/core/services.js';
import type { EventPayloads, SentLoad } from '../../../src-main/ipc/contract.js';
import { createRouter } from '../../../src-main/ipc/router.js';
import { sessionRow } from '../../support/session-rows.js';

type Checked = EventPayloads['library:files-checked'];

describe('a saved library reopened', () => {
  let home: string;
  let ids: string[];
  const data = () => join(home, 'data');
  const file = (name: string) => join(home, 'Album', name);

  /** A restart: new services and router; `gate` holds every file check until it opens. */
  const restart = (gate?: Promise<void>) => {
    const services = createServices({ COURIER_HOME: data() }, { secrets: new MemorySecretStore() });
    if (gate) {
      const grant = services.grants.grant.bind(services.grants);
      services.grants.grant = async (...args) => {
        await gate;
        return grant(...args);
      };
    }
    const router = createRouter({ kind: 'electron', locate: async () => [] }, services);
    const checked: Checked[] = [];
    router.subscribe((event, payload) => {
      if (event === 'library:files-checked') checked.push(payload as Checked);
    });
    return { services, router, checked };
  };
  const sessionOf = (rowIds: string[]): LibrarySession => ({
    version: 1,
    rows: rowIds.map((id, i) => sessionRow(id, `Track ${i}`, { file: `Album/${i}.flac` })),
    ignored: [],
  });
  const value = <T>(answer: unknown) => (answer as { ok: true; value: T }).value;
  /** Every check of `load` until the last, and the ids they found gone or changed. */
  const allChecked = async (checked: Checked[], load: string) => {
    await expect
      .poll(() => checked.some((c) => c.load === load && c.checked === c.total))
      .toBe(true);
    return checked.filter((c) => c.load === load).flatMap((c) => c.missing);
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-reopen-'));
    await mkdir(join(home, 'Album'), { recursive: true });
    const { services, router } = restart();
    ids = [];
    for (const name of ['01.flac', '02.flac', '03.flac', '04.flac']) {
      await writeFile(file(name), 'audio');
      ids.push((await services.grants.grant(file(name))).id);
    }
    await router.dispatch('library:save', { session: sessionOf(ids) });
  });

  afterAll(() => rm(home, { recursive: true, force: true }));

  it('answers with its rows before any file is checked, then marks what the checks find', async () => {
    await appendFile(file('02.flac'), ' changed');
    await rm(file('03.flac'));
    let open = () => {};
    const { router, checked } = restart(new Promise((resolve) => (open = resolve)));
    // Every check waits on the gate: an answer here means the rows did not wait for them.
    const loaded = value<SentLoad>(await router.dispatch('library:load', {}));
    expect(loaded.session?.rows.map((row) => row.id)).toEqual(ids);
    expect(loaded).toMatchObject({ total: 4, checking: 4, missing: [] });
    expect(checked).toEqual([]);
    open();
    expect((await allChecked(checked, loaded.load)).sort()).toEqual([ids[1], ids[2]].sort());
  });

  it('keeps the paths of rows not checked yet through a save, so they are not lost', async () => {
    let open = () => {};
    const { router, checked } = restart(new Promise((resolve) => (open = resolve)));
    const loaded = value<SentLoad>(await router.dispatch('library:load', {}));
    // A whole save while no file is checked yet (an edit saved in the first seconds).
    await router.dispatch('library:save', { session: sessionOf(ids) });
    open();
    await allChecked(checked, loaded.load);
    const again = restart();
    const reloaded = value<SentLoad>(await again.router.dispatch('library:load', {}));
    // Still checked against the disk: the unchanged files are found, the others still marked.
    expect(reloaded.checking).toBe(4);
    expect((await allChecked(again.checked, reloaded.load)).sort()).toEqual(
      [ids[1], ids[2]].sort(),
    );
  });

  it('waits for the checks before it reads a reopened file, rather than refusing it', async () => {
    let open = () => {};
    const { router, services } = restart(new Promise((resolve) => (open = resolve)));
    await router.dispatch('library:load', {});
    const read = router.dispatch('files:readTags', {
      files: [{ id: ids[0]!, relativePath: 'Album/01.flac' }],
    });
    open();
    await expect(read).resolves.toMatchObject({ ok: true });
    await services.grants.checked();
    expect(() => services.grants.get(ids[0]!)).not.toThrow();
  });

  it('sends a library too big for one message in pages', async () => {
    const other = await mkdtemp(join(tmpdir(), 'courier-reopen-pages-'));
    const router = createRouter(
      { kind: 'electron', locate: async () => [] },
      createServices({ COURIER_HOME: other }, { secrets: new MemorySecretStore() }),
    );
    const many = Array.from({ length: 5_003 }, (_, i) => `row-${i}`);
    await router.dispatch('library:save', { session: sessionOf(many) });
    const missing: string[] = [];
    const checked = new Promise<void>((resolve) =>
      router.subscribe((event, payload) => {
        if (event !== 'library:files-checked') return;
        const batch = payload as { missing: string[]; checked: number; total: number };
        missing.push(...batch.missing);
        if (batch.checked >= batch.total) resolve();
      }),
    );
    const loaded = value<SentLoad>(await router.dispatch('library:load', {}));
    expect(loaded.total).toBe(5_003);
    const first = loaded.session!.rows.length;
    expect(first).toBeLessThan(5_003);
    const rows = [...loaded.session!.rows];
    let pages = 0;
    while (rows.length < loaded.total) {
      const page = value<{ rows: LibrarySession['rows'] }>(
        await router.dispatch('library:rows', { load: loaded.load, offset: rows.length }),
      );
      expect(page.rows.length).toBeGreaterThan(0);
      rows.push(...page.rows);
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    expect(rows.map((row) => row.id)).toEqual(many);
    // Saved without files: all missing once read, with nothing to check on disk.
    await checked;
    expect(missing).toEqual(many);
    await rm(other, { recursive: true, force: true });
  });
});
