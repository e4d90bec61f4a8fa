import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { saveObjectToFile } from '../../../src-main/core/bucket/bucket-download.js';
import { withProfileBucket } from '../../../src-main/core/bucket/profile-bucket.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type { EventPayloads } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';

/** Large enough to arrive in many chunks, so an abort lands mid-file. */
const BIG = 24 * 1024 * 1024;
const KEY = 'delivery/metadata/large-export.bin';

describe('saving bucket objects to a file the user chose (streamed, atomic)', () => {
  let home: string;
  let downloads: string;
  let services: CoreServices;
  let router: Router;
  let content: Buffer;
  /** What the save dialog answers next: a path, or null for Cancel. */
  let dialogAnswer: string | null = null;
  const dialogAsked: string[] = [];
  const progress: Array<EventPayloads['bucket:save-progress']> = [];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-bucket-save-'));
    downloads = join(home, 'Downloads');
    services = createServices(
      { COURIER_HOME: join(home, 'data') },
      { secrets: new MemorySecretStore() },
    );
    router = createRouter(
      {
        kind: 'electron',
        locate: async () => [],
        chooseSavePath: async (fileName) => {
          dialogAsked.push(fileName);
          return dialogAnswer;
        },
      },
      services,
    );
    router.subscribe((event, payload) => {
      if (event === 'bucket:save-progress')
        progress.push(payload as EventPayloads['bucket:save-progress']);
    });
    // The first listing of profiles adds the Sandbox profile (its bucket runs in-process).
    await router.dispatch('profiles:list', {});
    content = randomBytes(BIG);
    await withProfileBucket(services.connections, 'Sandbox', (s3, bucket) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: KEY, Body: content })),
    );
  });

  afterAll(async () => {
    await services.connections.closeAll();
    await rm(home, { recursive: true, force: true });
  });

  it('writes the object byte for byte where the dialog said, with progress up to the whole size', async () => {
    dialogAnswer = join(downloads, 'export.bin');
    const result = await router.dispatch('bucket:save', { profile: 'Sandbox', key: KEY });
    expect(result).toEqual({
      ok: true,
      value: { key: KEY, outcome: 'saved', path: dialogAnswer, size: BIG },
    });
    expect(dialogAsked.at(-1)).toBe('large-export.bin');
    expect((await readFile(dialogAnswer)).equals(content)).toBe(true);
    expect(progress.at(-1)).toEqual({ key: KEY, receivedBytes: BIG, totalBytes: BIG });
    expect(await readdir(downloads)).toEqual(['export.bin']);
  });

  it('saves nothing when the user cancels the dialog', async () => {
    dialogAnswer = null;
    const result = await router.dispatch('bucket:save', { profile: 'Sandbox', key: 'INFO.json' });
    expect(result).toEqual({ ok: true, value: { key: 'INFO.json', outcome: 'canceled' } });
  });

  it('leaves neither the file nor a temp file when the download is aborted part way', async () => {
    const target = join(home, 'aborted', 'export.bin');
    const controller = new AbortController();
    const seen: number[] = [];
    const saving = withProfileBucket(services.connections, 'Sandbox', (s3, bucket) =>
      saveObjectToFile(s3, bucket, KEY, target, {
        signal: controller.signal,
        onProgress: ({ receivedBytes }) => {
          seen.push(receivedBytes);
          if (receivedBytes > 0) controller.abort();
        },
      }),
    );
    await expect(saving).rejects.toMatchObject({ code: 'canceled' });
    expect(seen.some((bytes) => bytes > 0 && bytes < BIG)).toBe(true);
    expect(await readdir(join(home, 'aborted'))).toEqual([]);
  });

  it('cancels a running save from the renderer, keeping nothing', async () => {
    dialogAnswer = join(home, 'canceled', 'export.bin');
    progress.length = 0;
    const stop = router.subscribe((event, payload) => {
      const p = payload as EventPayloads['bucket:save-progress'];
      if (event === 'bucket:save-progress' && p.receivedBytes === 0) {
        void router.dispatch('bucket:cancelSave', { profile: 'Sandbox', key: KEY });
      }
    });
    const result = await router.dispatch('bucket:save', { profile: 'Sandbox', key: KEY });
    stop();
    expect(result).toMatchObject({ ok: false, error: { code: 'canceled' } });
    expect(await readdir(join(home, 'canceled')).catch(() => [])).toEqual([]);
  });

  it('stops a running save on quit (router.close) and leaves nothing behind', async () => {
    dialogAnswer = join(home, 'quit', 'export.bin');
    const started = new Promise<void>((resolve) => {
      const stop = router.subscribe((event) => {
        if (event !== 'bucket:save-progress') return;
        stop();
        resolve();
      });
    });
    const saving = router.dispatch('bucket:save', { profile: 'Sandbox', key: KEY });
    await started;
    await router.close();
    await expect(saving).resolves.toMatchObject({ ok: false, error: { code: 'canceled' } });
    expect(await readdir(join(home, 'quit')).catch(() => [])).toEqual([]);
  });

  it('says so when the object is not in the bucket', async () => {
    dialogAnswer = join(downloads, 'gone.csv');
    const result = await router.dispatch('bucket:save', {
      profile: 'Sandbox',
      key: 'csv_outputs/none/gone.csv',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await readdir(downloads)).toEqual(['export.bin']);
  });

  it('refuses malformed requests before any dialog opens', async () => {
    const asked = dialogAsked.length;
    for (const request of [
      { profile: 'Sandbox', key: '' },
      { profile: 'Sandbox', key: KEY, path: '/etc/passwd' },
      { profile: 'Sandbox', key: 7 },
    ]) {
      expect(await router.dispatch('bucket:save', request)).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
    }
    expect(dialogAsked.length).toBe(asked);
  });
});
