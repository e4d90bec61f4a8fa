/**
 * The Electron shell: one window, the security checklist, IPC wired to the shared router, the
 * menu, the OS signals of running transfers and an orderly quit. entry.ts loads it unless the
 * binary was started as the `courier` command. Everything with logic lives in
 * core or in the pure modules beside this file; this file only composes them.
 */
import { join } from 'node:path';

import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  Notification,
  powerSaveBlocker,
  protocol,
  screen,
  session,
  shell,
} from 'electron';
import { autoUpdater } from 'electron-updater';

import { appProxyResolver } from '../core/network/proxy.js';
import { createServices } from '../core/services.js';
import { createRouter } from '../ipc/router.js';
import { appMenuTemplate, menuHandlers } from './app-menu.js';
import { APP_SCHEME, APP_URL, appScheme, createAppProtocolHandler } from './app-protocol.js';
import { createAppUpdates } from './app-updater.js';
import { cliToolHandlers, type Prompt } from './cli-tool.js';
import { errorFields, installCrashHandlers } from './crash-log.js';
import { createFolderOpener, createSavePathChooser } from './host-actions.js';
import { registerIpcHandlers } from './ipc-handlers.js';
import { grantOpenedPaths } from './opened-paths.js';
import { quitDialogOptions, QuitGuard } from './quit-guard.js';
import { denyPermissions, droppedFilePath, hardenContents, isTrustedSender } from './security.js';
import { focusWindow, pathsFromArgv } from './single-instance.js';
import { createSignalSink, TransferMonitor } from './transfer-signals.js';
import { mainWindowOptions } from './window-options.js';
import {
  loadWindowState,
  restoreBounds,
  saveWindowState,
  trackWindowState,
} from './window-state.js';

// The bundle lives in dist/main; the renderer build beside it in dist/renderer, served as app://.
const RENDERER_DIR = join(__dirname, '..', 'renderer');
const trustedContents = new Set<number>();

// Requests follow the OS's proxy settings, PAC scripts included, as Chromium resolves them
// (or HTTPS_PROXY and the like, when set: docs/networks.md).
const services = createServices(process.env, {
  source: 'app',
  resolveProxy: appProxyResolver(process.env, async (url) => {
    await app.whenReady();
    return session.defaultSession.resolveProxy(url);
  }),
});
const { log } = services;
const logsDir = join(services.dataDir, 'logs');

installCrashHandlers(process, log, (error) => {
  dialog.showErrorBox(
    'Catalog Courier stopped unexpectedly',
    `${error.message}\n\nThe details are in the log: ${logsDir}`,
  );
  app.exit(1);
});

let mainWindow: BrowserWindow | null = null;
let markWindowLoaded: () => void = () => undefined;
const windowLoaded = new Promise<void>((resolve) => (markWindowLoaded = resolve));
let flushWindowState: () => Promise<void> = async () => undefined;

const transfers = new TransferMonitor(
  createSignalSink({
    setProgressBar: (progress, mode) => mainWindow?.setProgressBar(progress, { mode }),
    startBlocker: () => powerSaveBlocker.start('prevent-app-suspension'),
    stopBlocker: (id) => powerSaveBlocker.stop(id),
    notify: ({ title, body }) => {
      if (Notification.isSupported()) new Notification({ title, body, silent: false }).show();
    },
  }),
);

const quitGuard = new QuitGuard({
  activeTransfers: () => transfers.active,
  confirm: async (active) => {
    const options = quitDialogOptions(active);
    const answer = mainWindow
      ? await dialog.showMessageBox(mainWindow, options)
      : await dialog.showMessageBox(options);
    return answer.response === 0;
  },
  pauseAndFlush: () => transfers.pauseAll(),
  // Downloads stop and remove their partial files first; closing the connections then stops
  // the embedded sandbox (its API and its S3 server).
  cleanup: async () => {
    await Promise.all([flushWindowState(), router.close()]);
    await services.connections.closeAll();
    await log.log('info', 'Quit');
  },
  quit: () => app.quit(),
  onError: (step, error) => void log.log('error', `Quit: ${step} failed`, errorFields(error)),
});

app.enableSandbox();
protocol.registerSchemesAsPrivileged([appScheme]);
app.on('web-contents-created', (_event, contents) => hardenContents(contents, shell.openExternal));
app.on('render-process-gone', (_event, _contents, details) => {
  void log.log('error', 'The window’s renderer process ended', { ...details });
});
app.on('child-process-gone', (_event, details) => {
  void log.log('error', 'A helper process ended', { ...details });
});

async function createMainWindow(): Promise<BrowserWindow> {
  const saved = await loadWindowState(services.dataDir);
  const workAreas = screen.getAllDisplays().map((display) => display.workArea);
  const primary = screen.getPrimaryDisplay().workArea;
  const window = new BrowserWindow(
    mainWindowOptions({
      preload: join(__dirname, 'preload.cjs'),
      devTools: !app.isPackaged,
      bounds: restoreBounds(saved, [primary, ...workAreas]),
    }),
  );
  const id = window.webContents.id;
  trustedContents.add(id);
  flushWindowState = trackWindowState(window, (state) => saveWindowState(services.dataDir, state));
  window.on('close', (event) => {
    // On Windows and Linux closing the last window quits: the quit guard asks first.
    if (process.platform !== 'darwin' && transfers.active > 0 && quitGuard.phase !== 'done') {
      event.preventDefault();
      app.quit();
    }
  });
  window.on('closed', () => {
    trustedContents.delete(id);
    if (mainWindow === window) mainWindow = null;
  });
  window.once('ready-to-show', () => {
    if (saved?.maximized) window.maximize();
    window.show();
  });
  mainWindow = window;
  await window.loadURL(APP_URL);
  markWindowLoaded();
  return window;
}

// The feed electron-builder wrote into the packaged app (none when unpackaged: not configured).
const updates = createAppUpdates({
  resourcesDir: app.isPackaged ? process.resourcesPath : null,
  version: app.getVersion(),
  dataDir: services.dataDir,
  log,
  updater: () => autoUpdater,
});

const router = createRouter(
  {
    kind: 'electron',
    // Only a path the preload read from a real dropped or picked File; core then checks the
    // file on disk against the size, mtime and content proof of the File the renderer holds.
    locate: async (ref) => {
      const path = droppedFilePath(ref);
      return path ? [path] : [];
    },
    // Each delivery's events drive the dock/taskbar bar, the keep-awake blocker and the end
    // notification; its stop (uploader `stop()`, then the run awaited) lets a quit pause it.
    transfers,
    // Main picks where a download goes, through the save dialog; the renderer names no path.
    chooseSavePath: createSavePathChooser(
      dialog,
      () => app.getPath('downloads'),
      () => mainWindow,
    ),
    openFolder: createFolderOpener(shell),
    updates,
  },
  services,
);

/** Where this copy of the app runs, for the command-line tool's menu items. */
function cliToolHost() {
  return {
    platform: process.platform,
    resourcesPath: process.resourcesPath,
    appImage: process.env.APPIMAGE,
    pathVariable: process.env.PATH,
  };
}

/** A message box over the window (or on its own when there is none); the button chosen. */
async function askInWindow(prompt: Prompt): Promise<number> {
  const answer = mainWindow
    ? await dialog.showMessageBox(mainWindow, prompt)
    : await dialog.showMessageBox(prompt);
  return answer.response;
}

/**
 * Paths given to a second launch (or dropped on the dock icon) join the library: main grants
 * them (the user chose them through the OS) and the renderer adds them and reads their tags.
 */
async function openPaths(paths: string[]): Promise<void> {
  focusWindow(mainWindow ?? undefined);
  if (paths.length === 0) return;
  void log.log('info', 'Paths handed to the app', { count: paths.length });
  // A drop on the dock icon can launch the app: the paths wait for the window's page.
  await windowLoaded;
  router.emit('library:open-paths', await grantOpenedPaths(paths, services.grants));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory) => {
    void openPaths(pathsFromArgv(argv, workingDirectory, [process.execPath, app.getAppPath()]));
  });
  app.on('open-file', (event, path) => {
    event.preventDefault();
    void openPaths([path]);
  });

  app.on('before-quit', (event) => {
    if (!quitGuard.request()) event.preventDefault();
  });

  void app.whenReady().then(async () => {
    void log.log('info', 'Started', { version: app.getVersion(), platform: process.platform });
    denyPermissions(session.defaultSession);
    protocol.handle(APP_SCHEME, createAppProtocolHandler(RENDERER_DIR));
    registerIpcHandlers(ipcMain, router, (event) =>
      isTrustedSender(event, trustedContents, APP_URL),
    );
    router.subscribe((event, payload) => {
      for (const window of BrowserWindow.getAllWindows()) window.webContents.send(event, payload);
    });
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        appMenuTemplate(
          process.platform,
          app.name,
          {
            ...menuHandlers(router, () => focusWindow(mainWindow ?? undefined)),
            // The `courier` launcher ships in the packaged app's resources only.
            ...(app.isPackaged ? cliToolHandlers(cliToolHost(), askInWindow) : {}),
          },
          { devTools: !app.isPackaged },
        ),
      ),
    );
    await createMainWindow();
    // The start-up check only asks; the renderer offers what it finds.
    void updates.check({ manual: false });
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) void createMainWindow();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
