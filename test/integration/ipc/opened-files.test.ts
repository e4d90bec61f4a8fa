import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fileId } from '../../../src-main/core/files/file-grants.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import { grantOpenedPaths } from '../../../src-main/electron/opened-paths.js';
import type { EventPayloads, ResultOf } from '../../../src-main/ipc/contract.js';
import { createRouter, type HostAdapter, type Router } from '../../../src-main/ipc/router.js';
import { readFileTags } from '../../../src-renderer/lib/tags/read-file.js';
import { makeTaggedAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping opened-file tests: missing ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('files the OS hands the app, and the app folders', () => {
  let home: string;
  let masters: string;
  let services: CoreServices;
  let router: Router;
  const shown: string[] = [];
  let opened: EventPayloads['library:open-paths'];

  const routerFor = (host: Partial<HostAdapter>) =>
    createRouter({ kind: 'electron', locate: async () => [], ...host }, services);

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-opened-'));
    masters = join(home, 'masters');
    services = createServices(
      { COURIER_HOME: join(home, 'data') },
      { secrets: new MemorySecretStore() },
    );
    router = routerFor({ openFolder: async (path) => void shown.push(path) });
    await makeTaggedAudio('flac', join(masters, 'Low Tide', '01 Harbour.flac'), 'vorbis', {
      title: 'Harbour',
      artists: ['Mara Quinn'],
      isrc: 'GBAYE2100001',
    });
    await makeTaggedAudio('mp3', join(masters, 'single.mp3'), 'id3v2.4', { title: 'Single' });
    await writeFile(join(masters, 'Low Tide', 'cover.jpg'), 'not audio');
    opened = await grantOpenedPaths(
      [join(masters, 'Low Tide'), join(masters, 'single.mp3'), join(masters, 'gone.flac')],
      services.grants,
    );
  });

  afterAll(async () => {
    await services.connections.closeAll();
    await rm(home, { recursive: true, force: true });
  });

  it('grants the audio of opened folders and files, named as if they had been dropped', async () => {
    const harbour = join(masters, 'Low Tide', '01 Harbour.flac');
    expect(opened.files).toEqual([
      {
        id: fileId(harbour),
        name: '01 Harbour.flac',
        relativePath: 'Low Tide/01 Harbour.flac',
        size: (await stat(harbour)).size,
        lastModified: Math.trunc((await stat(harbour)).mtimeMs),
      },
      expect.objectContaining({
        relativePath: 'single.mp3',
        id: fileId(join(masters, 'single.mp3')),
      }),
    ]);
    expect(opened.refused).toEqual([
      { relativePath: 'Low Tide/cover.jpg', reason: 'ignored: not an audio file' },
      { relativePath: 'gone.flac', reason: 'not found on disk' },
    ]);
    expect(services.grants.get(opened.files[0]!.id).path).toBe(harbour);
  });

  it('reads their tags in main into exactly what the page’s tag reader gives', async () => {
    const result = await router.dispatch('files:readTags', {
      files: opened.files.map(({ id, relativePath }) => ({ id, relativePath })),
    });
    expect(result).toMatchObject({ ok: true });
    const { results } = (result as { value: ResultOf<'readFileTags'> }).value;
    expect(results.map((r) => r.result.draft?.title?.value)).toEqual(['Harbour', 'Single']);
    for (const [i, file] of opened.files.entries()) {
      const path = services.grants.get(file.id).path;
      const inPage = await readFileTags(
        new File([await readFile(path)], file.name),
        file.relativePath,
      );
      expect(results[i]!.result).toEqual(inPage);
    }
  });

  it('refuses an id never granted, and a relative path the granted file is not at', async () => {
    const never = await router.dispatch('files:readTags', {
      files: [{ id: fileId('/etc/passwd'), relativePath: 'passwd' }],
    });
    expect(never).toMatchObject({ ok: false, error: { code: 'not_granted' } });
    const elsewhere = await router.dispatch('files:readTags', {
      files: [{ id: opened.files[0]!.id, relativePath: 'Other/01 Harbour.flac' }],
    });
    expect(elsewhere).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const extra = await router.dispatch('files:readTags', {
      files: [{ id: opened.files[0]!.id, relativePath: 'Low Tide/01 Harbour.flac', path: '/' }],
    });
    expect(extra).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('opens the logs and the data folder where the door can, creating them first', async () => {
    const dataDir = join(home, 'data');
    await expect(router.dispatch('app:openLogs', {})).resolves.toEqual({
      ok: true,
      value: { path: join(dataDir, 'logs'), opened: true },
    });
    await expect(router.dispatch('app:openDataFolder', {})).resolves.toEqual({
      ok: true,
      value: { path: dataDir, opened: true },
    });
    expect(shown).toEqual([join(dataDir, 'logs'), dataDir]);
    expect((await stat(join(dataDir, 'logs'))).isDirectory()).toBe(true);
  });

  it('only tells the path where the door opens nothing on the machine (the browser host)', async () => {
    const web = routerFor({ kind: 'web' });
    await expect(web.dispatch('app:openLogs', {})).resolves.toEqual({
      ok: true,
      value: { path: join(home, 'data', 'logs'), opened: false },
    });
    await mkdir(join(home, 'data'), { recursive: true });
    await expect(web.dispatch('app:openDataFolder', { path: '/' })).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
  });
});
