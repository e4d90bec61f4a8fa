import type { MenuItemConstructorOptions } from 'electron';

import type { Router } from '../ipc/router.js';

/** What the app's own menu items do; main supplies them. */
export interface MenuHandlers {
  openPreferences(): void;
  openDataFolder(): void;
  viewLogs(): void;
  /** The `courier` command (cli-tool.ts): installs it on macOS, says how elsewhere. */
  installCommandLineTool?(): void;
  /** Removes the macOS link to the `courier` command. */
  uninstallCommandLineTool?(): void;
  /** Help › Check for Updates… (the app only: present when the app has updates). */
  checkForUpdates?(): void;
}

/**
 * The menu items over the router: Preferences… brings the window forward on Settings; the
 * folder items run the same operations as the Settings buttons, and a failure is told in the
 * window rather than lost.
 */
export function menuHandlers(
  router: Pick<Router, 'dispatch' | 'emit'>,
  focus: () => void,
): MenuHandlers {
  const run = (channel: 'app:openDataFolder' | 'app:openLogs' | 'updates:check') => {
    void router.dispatch(channel, {}).then((result) => {
      if (!result.ok) router.emit('app:notice', { level: 'error', message: result.error.message });
    });
  };
  return {
    openPreferences: () => {
      focus();
      router.emit('app:navigate', { view: 'settings' });
    },
    openDataFolder: () => run('app:openDataFolder'),
    viewLogs: () => run('app:openLogs'),
    // Settings' Updates section shows what the check finds.
    checkForUpdates: () => {
      focus();
      router.emit('app:navigate', { view: 'settings' });
      run('updates:check');
    },
  };
}

/**
 * The application menu as a template (`Menu.buildFromTemplate`), for one platform: macOS gets the
 * app menu (About, Preferences… ⌘,, Services, Hide, Quit) and the Window menu; Windows and Linux
 * get Preferences under Edit (Ctrl+,) and Quit under File. Every edit and view item is a role,
 * so Electron supplies the platform's standard labels and shortcuts. Help holds the
 * command-line tool's items when main supplies their handlers (the packaged app).
 */
export function appMenuTemplate(
  platform: NodeJS.Platform,
  appName: string,
  handlers: MenuHandlers,
  options: { devTools: boolean } = { devTools: false },
): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const preferences: MenuItemConstructorOptions = {
    label: mac ? 'Settings…' : 'Preferences…',
    accelerator: 'CmdOrCtrl+,',
    click: () => handlers.openPreferences(),
  };
  const folders: MenuItemConstructorOptions[] = [
    { label: 'Open Data Folder', click: () => handlers.openDataFolder() },
    { label: 'View Logs', click: () => handlers.viewLogs() },
  ];

  const appMenu: MenuItemConstructorOptions = {
    label: appName,
    submenu: [
      { role: 'about' },
      { type: 'separator' },
      preferences,
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { role: 'quit' },
    ],
  };
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [...folders, { type: 'separator' }, mac ? { role: 'close' } : { role: 'quit' }],
  };
  const edit: MenuItemConstructorOptions = {
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'delete' },
      { role: 'selectAll' },
      ...(mac ? [] : [{ type: 'separator' } as const, preferences]),
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      ...(options.devTools
        ? [
            { role: 'reload' } as const,
            { role: 'toggleDevTools' } as const,
            { type: 'separator' } as const,
          ]
        : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const window: MenuItemConstructorOptions = {
    role: 'windowMenu',
  };
  const commandLine: MenuItemConstructorOptions[] = [];
  const { installCommandLineTool, uninstallCommandLineTool } = handlers;
  if (installCommandLineTool) {
    commandLine.push(
      { type: 'separator' },
      { label: 'Install Command-Line Tool…', click: () => installCommandLineTool() },
    );
  }
  if (mac && uninstallCommandLineTool) {
    commandLine.push({
      label: 'Uninstall Command-Line Tool…',
      click: () => uninstallCommandLineTool(),
    });
  }
  const updates: MenuItemConstructorOptions[] = handlers.checkForUpdates
    ? [{ label: 'Check for Updates…', click: () => handlers.checkForUpdates?.() }]
    : [];
  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      ...folders,
      ...commandLine,
      ...updates,
      ...(mac ? [] : [{ type: 'separator' } as const, { role: 'about' } as const]),
    ],
  };
  return mac ? [appMenu, file, edit, view, window, help] : [file, edit, view, help];
}
