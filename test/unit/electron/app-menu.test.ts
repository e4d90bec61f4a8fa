import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';

import { appMenuTemplate } from '../../../src-main/electron/app-menu.js';

const handlers = () => ({
  openPreferences: vi.fn(),
  openDataFolder: vi.fn(),
  viewLogs: vi.fn(),
});

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [
    item,
    ...items(Array.isArray(item.submenu) ? item.submenu : []),
  ]);
}

const byLabel = (template: MenuItemConstructorOptions[], label: string) =>
  items(template).filter((item) => item.label === label);

describe('appMenuTemplate()', () => {
  describe('on macOS', () => {
    const actions = handlers();
    const template = appMenuTemplate('darwin', 'Catalog Courier', actions);

    it('starts with the app menu: About, Settings… (⌘,), Services, Hide, Quit', () => {
      const [appMenu] = template;
      expect(appMenu!.label).toBe('Catalog Courier');
      const submenu = appMenu!.submenu as MenuItemConstructorOptions[];
      expect(submenu.map((item) => item.role ?? item.label ?? item.type)).toEqual([
        'about',
        'separator',
        'Settings…',
        'separator',
        'services',
        'separator',
        'hide',
        'hideOthers',
        'unhide',
        'separator',
        'quit',
      ]);
      expect(submenu[2]!.accelerator).toBe('CmdOrCtrl+,');
    });

    it('has the Window menu and no Quit in File', () => {
      expect(template.map((item) => item.role ?? item.label)).toEqual([
        'Catalog Courier',
        '&File',
        '&Edit',
        '&View',
        'windowMenu',
        'help',
      ]);
      const file = template[1]!.submenu as MenuItemConstructorOptions[];
      expect(file.some((item) => item.role === 'quit')).toBe(false);
    });
  });

  describe.each(['win32', 'linux'] as const)('on %s', (platform) => {
    const actions = handlers();
    const template = appMenuTemplate(platform, 'Catalog Courier', actions);

    it('has no app menu: Quit under File, Preferences… (Ctrl+,) under Edit', () => {
      expect(template.map((item) => item.role ?? item.label)).toEqual([
        '&File',
        '&Edit',
        '&View',
        'help',
      ]);
      const file = template[0]!.submenu as MenuItemConstructorOptions[];
      expect(file.at(-1)!.role).toBe('quit');
      const edit = template[1]!.submenu as MenuItemConstructorOptions[];
      expect(edit.at(-1)).toMatchObject({ label: 'Preferences…', accelerator: 'CmdOrCtrl+,' });
    });

    it('puts About under Help', () => {
      const help = template.at(-1)!.submenu as MenuItemConstructorOptions[];
      expect(help.at(-1)!.role).toBe('about');
    });
  });

  it.each(['darwin', 'win32', 'linux'] as const)(
    'on %s, Open Data Folder, View Logs and Preferences call their handlers',
    (platform) => {
      const actions = handlers();
      const template = appMenuTemplate(platform, 'Catalog Courier', actions);
      const click = (label: string) => {
        const [item] = byLabel(template, label);
        expect(item, label).toBeDefined();
        (item!.click as () => void)();
      };
      click('Open Data Folder');
      click('View Logs');
      click(platform === 'darwin' ? 'Settings…' : 'Preferences…');
      expect(actions.openDataFolder).toHaveBeenCalledOnce();
      expect(actions.viewLogs).toHaveBeenCalledOnce();
      expect(actions.openPreferences).toHaveBeenCalledOnce();
    },
  );

  describe('the command-line tool', () => {
    const withTool = () => ({
      ...handlers(),
      installCommandLineTool: vi.fn(),
      uninstallCommandLineTool: vi.fn(),
    });

    it('on macOS, Help offers to install and uninstall it', () => {
      const actions = withTool();
      const template = appMenuTemplate('darwin', 'Catalog Courier', actions);
      const help = template.at(-1)!.submenu as MenuItemConstructorOptions[];
      expect(help.map((item) => item.label ?? item.type)).toEqual([
        'Open Data Folder',
        'View Logs',
        'separator',
        'Install Command-Line Tool…',
        'Uninstall Command-Line Tool…',
      ]);
      (help[3]!.click as () => void)();
      (help[4]!.click as () => void)();
      expect(actions.installCommandLineTool).toHaveBeenCalledOnce();
      expect(actions.uninstallCommandLineTool).toHaveBeenCalledOnce();
    });

    it.each(['win32', 'linux'] as const)(
      'on %s, Help explains it (no uninstall item)',
      (platform) => {
        const actions = withTool();
        const template = appMenuTemplate(platform, 'Catalog Courier', actions);
        expect(byLabel(template, 'Uninstall Command-Line Tool…')).toEqual([]);
        const [install] = byLabel(template, 'Install Command-Line Tool…');
        (install!.click as () => void)();
        expect(actions.installCommandLineTool).toHaveBeenCalledOnce();
      },
    );

    it('is absent when main offers none (development, where no launcher ships)', () => {
      const template = appMenuTemplate('darwin', 'Catalog Courier', handlers());
      expect(byLabel(template, 'Install Command-Line Tool…')).toEqual([]);
    });
  });

  it('uses roles for the standard edit items, so the platform supplies shortcuts', () => {
    const edit = appMenuTemplate('linux', 'Courier', handlers())[1]!
      .submenu as MenuItemConstructorOptions[];
    for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']) {
      expect(
        edit.some((item) => item.role === role),
        role,
      ).toBe(true);
    }
  });

  it('offers reload and dev tools only in development', () => {
    const roles = (devTools: boolean) =>
      items(appMenuTemplate('linux', 'Courier', handlers(), { devTools })).map((i) => i.role);
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(false)).not.toContain('reload');
    expect(roles(true)).toContain('toggleDevTools');
  });
});

describe('Help › Check for Updates…', () => {
  it('is there when the app has updates, and runs the check', () => {
    const actions = { ...handlers(), checkForUpdates: vi.fn() };
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const [item] = byLabel(
        appMenuTemplate(platform, 'Catalog Courier', actions),
        'Check for Updates…',
      );
      (item!.click as () => void)();
    }
    expect(actions.checkForUpdates).toHaveBeenCalledTimes(3);
    expect(
      byLabel(appMenuTemplate('linux', 'Catalog Courier', handlers()), 'Check for Updates…'),
    ).toEqual([]);
  });
});
