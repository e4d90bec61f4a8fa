import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  adminScriptArgs,
  CLI_MARKER,
  cliArguments,
  cliToolAction,
  cliToolHandlers,
  installCliLink,
  launcherPath,
  linkCommand,
  machineDeps,
  type Prompt,
  uninstallCliLink,
} from '../../../src-main/electron/cli-tool.js';

const sh = promisify(execFile);

describe('cliArguments()', () => {
  it('gives what follows the marker in the packaged app (argv: executable, marker, --, args)', () => {
    expect(cliArguments(['/app/Catalog Courier', CLI_MARKER, '--', 'scan', '--json'])).toEqual([
      'scan',
      '--json',
    ]);
  });

  it('finds the marker after the app folder in development (electron . --courier-cli)', () => {
    expect(cliArguments(['/electron', '.', CLI_MARKER, '--', '--help'])).toEqual(['--help']);
    expect(cliArguments(['/electron', '.', CLI_MARKER])).toEqual([]);
  });

  it('is null for an ordinary launch, with or without paths to open', () => {
    expect(cliArguments(['/app/Catalog Courier'])).toBeNull();
    expect(cliArguments(['/app/Catalog Courier', '/Music/Album'])).toBeNull();
  });

  it('leaves everything after the -- to the user, even a path named like the marker', () => {
    expect(cliArguments(['/app/Catalog Courier', '--', CLI_MARKER])).toBeNull();
    expect(
      cliArguments(['/app/Catalog Courier', CLI_MARKER, '--', 'scan', '--', CLI_MARKER]),
    ).toEqual(['scan', '--', CLI_MARKER]);
  });
});

describe('cliToolAction()', () => {
  it('on macOS links /usr/local/bin/courier to the launcher inside the .app', () => {
    const resources = '/Applications/Catalog Courier.app/Contents/Resources';
    expect(cliToolAction({ platform: 'darwin', resourcesPath: resources })).toEqual({
      kind: 'link',
      link: '/usr/local/bin/courier',
      target: `${resources}/bin/courier`,
    });
  });

  describe('on Windows', () => {
    const resources = 'C:\\Users\\Ana\\AppData\\Local\\Programs\\catalog-courier\\resources';
    const message = (pathVariable: string) =>
      (
        cliToolAction({ platform: 'win32', resourcesPath: resources, pathVariable }) as {
          prompt: Prompt;
        }
      ).prompt;

    it('says the command is on PATH when the installer put its folder there', () => {
      const prompt = message(`C:\\Windows;${resources.toUpperCase()}\\BIN\\;C:\\Tools`);
      expect(prompt.message).toBe(
        'The courier command is on your PATH: run courier --help in a new terminal.',
      );
      expect(prompt.detail).toContain(`${resources}\\bin\\courier.cmd`);
    });

    it('points to the installer’s PATH option when it is not there', () => {
      const prompt = message('C:\\Windows;C:\\Tools');
      expect(prompt.message).toMatch(
        /not on your PATH yet: run the Catalog Courier installer again/,
      );
      expect(prompt.message).toContain('Add the courier command to your PATH?');
    });
  });

  it('from an AppImage, explains running the command through the AppImage, with an alias', () => {
    const action = cliToolAction({
      platform: 'linux',
      resourcesPath: '/tmp/.mount_CatalogXYZ/resources',
      appImage: "/home/ana/Apps/Catalog Courier's.AppImage",
    });
    expect(action.kind).toBe('explain');
    const { prompt } = action as { prompt: Prompt };
    expect(prompt.message).toBe(
      `The AppImage runs the courier command itself: '/home/ana/Apps/Catalog Courier'\\''s.AppImage' --courier-cli -- --help`,
    );
    expect(prompt.detail).toContain('alias courier=');
    expect(prompt.detail).toContain('install it with Node.js');
  });

  it('from the .deb, says where the package installed the command, or how to link it', () => {
    const host = { platform: 'linux' as const, resourcesPath: '/opt/Catalog Courier/resources' };
    const installed = cliToolAction({ ...host, debLinkInstalled: true }) as { prompt: Prompt };
    expect(installed.prompt.message).toBe(
      'The courier command is installed with the package, at /usr/bin/courier: run courier --help in a terminal.',
    );
    const missing = cliToolAction({ ...host, debLinkInstalled: false }) as { prompt: Prompt };
    expect(missing.prompt.message).toBe(
      "The courier command is not on your PATH: link it with sudo ln -s '/opt/Catalog Courier/resources/bin/courier' /usr/local/bin/courier",
    );
  });
});

describe('the macOS link', () => {
  let dir: string;
  let link: string;
  let target: string;
  let prompts: Prompt[];
  let answers: number[];

  const deps = (extra: Partial<ReturnType<typeof machineDeps>> = {}) => ({
    ...machineDeps(async (prompt) => {
      prompts.push(prompt);
      return answers.shift() ?? 0;
    }),
    ...extra,
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-cli-tool-'));
    link = join(dir, 'usr local', 'bin', 'courier');
    target = join(dir, "Catalog Courier's.app", 'Contents', 'Resources', 'bin', 'courier');
    prompts = [];
    answers = [];
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('asks first, and a No leaves nothing behind', async () => {
    answers = [1];
    expect(await installCliLink(link, target, deps())).toBe('cancelled');
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      type: 'question',
      message: `Install the courier command at ${link}?`,
      buttons: ['Install', 'Cancel'],
    });
    await expect(lstat(link)).rejects.toThrow(/ENOENT/);
  });

  it('links the command to the launcher, making the folder, and says how to use it', async () => {
    expect(await installCliLink(link, target, deps())).toBe('installed');
    expect(await readlink(link)).toBe(target);
    expect(prompts.at(-1)).toMatchObject({
      type: 'info',
      message: `The courier command is installed at ${link}.`,
    });
    expect(await installCliLink(link, target, deps())).toBe('already');
    expect(prompts.at(-1)!.message).toBe(`The courier command is already installed at ${link}.`);
  });

  it('says it replaces another courier (npm’s, say) before replacing it', async () => {
    await mkdir(join(dir, 'usr local', 'bin'), { recursive: true });
    await symlink('/usr/local/lib/node_modules/catalog-courier/bin/courier.mjs', link);
    expect(await installCliLink(link, target, deps())).toBe('installed');
    expect(prompts[0]!.detail).toContain(
      'It replaces what is there now (/usr/local/lib/node_modules/catalog-courier/bin/courier.mjs).',
    );
    expect(await readlink(link)).toBe(target);
  });

  it('where the folder is not writable, makes the link as the administrator', async () => {
    const commands: string[] = [];
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const result = await installCliLink(
      link,
      target,
      deps({
        symlink: async () => Promise.reject(denied),
        // Plays osascript's "with administrator privileges": the command runs in a shell.
        runAsAdmin: async (command) => {
          commands.push(command);
          await sh('/bin/sh', ['-c', command]);
          return true;
        },
      }),
    );
    expect(result).toBe('installed');
    expect(commands).toEqual([linkCommand(link, target)]);
    expect(await readlink(link)).toBe(target);
  });

  it('stops quietly when the administrator prompt is cancelled', async () => {
    const denied = Object.assign(new Error('EPERM'), { code: 'EPERM' });
    const result = await installCliLink(
      link,
      target,
      deps({ symlink: async () => Promise.reject(denied), runAsAdmin: async () => false }),
    );
    expect(result).toBe('cancelled');
    expect(prompts).toHaveLength(1);
  });

  it('tells what failed, to what, when the link can’t be made', async () => {
    const result = await installCliLink(
      link,
      target,
      deps({ mkdir: async () => Promise.reject(new Error('EROFS: read-only file system')) }),
    );
    expect(result).toBe('failed');
    expect(prompts.at(-1)).toMatchObject({
      type: 'error',
      message: `The courier command could not be installed at ${link}: EROFS: read-only file system`,
    });
  });

  it('uninstalls only its own link', async () => {
    expect(await uninstallCliLink(link, target, deps())).toBe('absent');
    await mkdir(join(dir, 'usr local', 'bin'), { recursive: true });
    await writeFile(link, '#!/bin/sh\n');
    expect(await uninstallCliLink(link, target, deps())).toBe('foreign');
    expect(prompts.at(-1)!.message).toBe(
      `${link} is not Catalog Courier’s courier command, so it was left as it is.`,
    );
    await rm(link);
    await installCliLink(link, target, deps());
    expect(await uninstallCliLink(link, target, deps())).toBe('removed');
    await expect(lstat(link)).rejects.toThrow(/ENOENT/);
  });
});

describe('adminScriptArgs()', () => {
  it('hands osascript the shell command as an AppleScript string, quotes and backslashes escaped', () => {
    const command = linkCommand('/usr/local/bin/courier', '/Applications/A "B" \\ C\'s.app/x');
    const [flag, script] = adminScriptArgs(command);
    expect(flag).toBe('-e');
    const literal = /^do shell script "((?:[^"\\]|\\.)*)" with administrator privileges$/.exec(
      script!,
    );
    expect(literal).not.toBeNull();
    expect(literal![1]!.replace(/\\(.)/g, '$1')).toBe(command);
  });
});

describe('cliToolHandlers()', () => {
  it('on macOS offers install and uninstall; on Windows and Linux an explanation', async () => {
    const mac = cliToolHandlers({ platform: 'darwin', resourcesPath: '/r' }, async () => 1);
    expect(mac.uninstallCommandLineTool).toBeTypeOf('function');
    const prompts: Prompt[] = [];
    const linux = cliToolHandlers(
      { platform: 'linux', resourcesPath: '/opt/Catalog Courier/resources' },
      async (prompt) => {
        prompts.push(prompt);
        return 0;
      },
      { readLink: async () => launcherPath('linux', '/opt/Catalog Courier/resources') },
    );
    expect(linux.uninstallCommandLineTool).toBeUndefined();
    linux.installCommandLineTool();
    await expect.poll(() => prompts.length).toBe(1);
    expect(prompts[0]!.message).toMatch(/installed with the package, at \/usr\/bin\/courier/);
  });
});
