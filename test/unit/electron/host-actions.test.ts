import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BrowserWindow, dialog, shell } from 'electron';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createServices } from '../../../src-main/core/services.js';
import { menuHandlers } from '../../../src-main/electron/app-menu.js';
import {
  createFolderOpener,
  createSavePathChooser,
} from '../../../src-main/electron/host-actions.js';
import type { EventName } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { dialog as fakeDialog, shell as fakeShell } from '../../fakes/electron.js';

describe('the shell’s save dialog for downloads', () => {
  const window = new BrowserWindow({});
  const choose = createSavePathChooser(
    dialog,
    () => '/home/ana/Downloads',
    () => window as never,
  );

  beforeEach(() => {
    fakeDialog.asked.length = 0;
  });

  it('offers the Downloads folder and the object’s name, on the app window', async () => {
    fakeDialog.answer = { canceled: false, filePath: '/home/ana/Exports/tags.csv' };
    await expect(choose('tags-2026.csv')).resolves.toBe('/home/ana/Exports/tags.csv');
    expect(fakeDialog.asked).toEqual([
      {
        parent: window,
        options: expect.objectContaining({ defaultPath: '/home/ana/Downloads/tags-2026.csv' }),
      },
    ]);
  });

  it('answers null when the user cancels, so nothing is downloaded', async () => {
    fakeDialog.answer = { canceled: true, filePath: '' };
    await expect(choose('tags.csv')).resolves.toBeNull();
  });

  it('asks without a parent before the window exists', async () => {
    fakeDialog.answer = { canceled: false, filePath: '/tmp/x.csv' };
    const early = createSavePathChooser(
      dialog,
      () => '/d',
      () => null,
    );
    await expect(early('x.csv')).resolves.toBe('/tmp/x.csv');
    expect(fakeDialog.asked[0]!.parent).toBeNull();
  });
});

describe('the menu over the router', () => {
  let home: string;
  let router: Router;
  const events: Array<[EventName, unknown]> = [];
  let focused = 0;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-menu-'));
    router = createRouter(
      { kind: 'electron', locate: async () => [], openFolder: createFolderOpener(shell) },
      createServices({ COURIER_HOME: home }),
    );
    router.subscribe((event, payload) => events.push([event, payload]));
  });

  afterAll(() => rm(home, { recursive: true, force: true }));

  beforeEach(() => {
    events.length = 0;
    fakeShell.openedPaths.length = 0;
    fakeShell.openPathAnswer = '';
  });

  const handlers = () => menuHandlers(router, () => focused++);

  it('Preferences… brings the window forward and tells the page to show Settings', () => {
    handlers().openPreferences();
    expect(focused).toBe(1);
    expect(events).toEqual([['app:navigate', { view: 'settings' }]]);
  });

  it('View Logs and Open Data Folder show those folders in the file manager', async () => {
    handlers().viewLogs();
    handlers().openDataFolder();
    await expect.poll(() => fakeShell.openedPaths.length).toBe(2);
    expect(fakeShell.openedPaths.sort()).toEqual([home, join(home, 'logs')]);
    expect(events).toEqual([]);
  });

  it('tells the window when the OS can’t open a folder', async () => {
    fakeShell.openPathAnswer = 'No application is registered to open folders';
    handlers().viewLogs();
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toEqual([
      'app:notice',
      {
        level: 'error',
        message: `Could not open ${join(home, 'logs')}: No application is registered to open folders`,
      },
    ]);
  });
});
