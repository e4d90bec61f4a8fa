/**
 * The Electron shell: one window, the security checklist, IPC wired to the shared router.
 * Everything with logic lives in core or in the pure modules beside this file.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { app, BrowserWindow, ipcMain, session, shell } from 'electron';

import { createServices } from '../core/services.js';
import { createRouter } from '../ipc/router.js';
import { registerIpcHandlers } from './ipc-handlers.js';
import { denyPermissions, hardenContents, isTrustedSender } from './security.js';
import { mainWindowOptions } from './window-options.js';

// The bundle lives in dist/main; the renderer build beside it in dist/renderer.
const RENDERER_INDEX = join(__dirname, '..', 'renderer', 'index.html');
const APP_URL = pathToFileURL(RENDERER_INDEX).href;
const trustedContents = new Set<number>();

app.enableSandbox();

app.on('web-contents-created', (_event, contents) => hardenContents(contents, shell.openExternal));

function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow(
    mainWindowOptions({ preload: join(__dirname, 'preload.cjs'), devTools: !app.isPackaged }),
  );
  const id = window.webContents.id;
  trustedContents.add(id);
  window.on('closed', () => trustedContents.delete(id));
  window.once('ready-to-show', () => window.show());
  void window.loadFile(RENDERER_INDEX);
  return window;
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows();
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });

  void app.whenReady().then(() => {
    denyPermissions(session.defaultSession);
    const router = createRouter(
      { kind: 'electron', locate: async (ref) => ref.path ?? null },
      createServices(),
    );
    registerIpcHandlers(ipcMain, router, (event) =>
      isTrustedSender(event, trustedContents, APP_URL),
    );
    router.subscribe((event, payload) => {
      for (const window of BrowserWindow.getAllWindows()) window.webContents.send(event, payload);
    });
    createMainWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createMainWindow();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
