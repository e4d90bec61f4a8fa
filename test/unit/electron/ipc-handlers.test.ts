import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ipcMain } from 'electron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createServices } from '../../../src-main/core/services.js';
import { APP_URL } from '../../../src-main/electron/app-protocol.js';
import { registerIpcHandlers } from '../../../src-main/electron/ipc-handlers.js';
import { isTrustedSender } from '../../../src-main/electron/security.js';
import { operations } from '../../../src-main/ipc/contract.js';
import { createRouter } from '../../../src-main/ipc/router.js';
import { FakeWebContents, ipcMain as fakeIpcMain } from '../../fakes/electron.js';

describe('registerIpcHandlers()', () => {
  const window = new FakeWebContents();
  const stranger = new FakeWebContents();
  let home: string;
  let dispatched: string[];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-'));
    const router = createRouter(
      { kind: 'electron', locate: async (ref) => (ref.path ? [ref.path] : []) },
      createServices({ COURIER_HOME: home }),
    );
    dispatched = [];
    const spy = {
      ...router,
      dispatch: (channel: string, raw: unknown) => {
        dispatched.push(channel);
        return router.dispatch(channel, raw);
      },
    };
    registerIpcHandlers(ipcMain, spy, (event) =>
      isTrustedSender(event, new Set([window.id]), APP_URL),
    );
  });

  afterAll(() => rm(home, { recursive: true, force: true }));

  const from = (contents: FakeWebContents, url = APP_URL) => ({
    sender: contents,
    senderFrame: { url, parent: null },
  });

  it('handles every channel of the contract', () => {
    for (const { channel } of Object.values(operations)) {
      expect(fakeIpcMain.handlers.has(channel)).toBe(true);
    }
  });

  it('answers the app window through the router', async () => {
    const result = await fakeIpcMain.invoke('app:info', from(window), {});
    expect(result).toMatchObject({ ok: true, value: { host: 'electron', dataDir: home } });
  });

  it('drops a message from a window it did not create before it reaches core', async () => {
    dispatched.length = 0;
    const result = await fakeIpcMain.invoke('app:info', from(stranger), {});
    expect(result).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'app:info: sender is not the app window' },
    });
    expect(dispatched).toEqual([]);
  });

  it('drops a message from the app window once it shows another page', async () => {
    const result = await fakeIpcMain.invoke('app:info', from(window, 'https://evil.example/'), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('rejects a malformed request with a message naming the field', async () => {
    const result = await fakeIpcMain.invoke('files:grant', from(window), {
      files: [{ name: 'a.flac', relativePath: 'a.flac', size: -1, lastModified: 0 }],
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect((result as { error: { message: string } }).error.message).toMatch(/files\.0\.size/);
  });
});
