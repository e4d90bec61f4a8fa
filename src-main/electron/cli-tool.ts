/**
 * The `courier` command inside the app, the way VS Code offers `code`: the app binary runs the
 * CLI when started with a marker argument (the `runAsNode` fuse stays off, so a launcher script
 * shipped in the app's resources starts the app itself), and the menu's "Install Command-Line
 * Tool…" puts that launcher on the PATH, or says how, per platform. Pure: no `electron` import;
 * main.ts and entry.ts supply the dialogs, the file system and the admin prompt.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readlink, symlink, unlink } from 'node:fs/promises';
import { join, posix, win32 } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The argument the launchers put first: the app binary then runs `courier`, not the app. */
export const CLI_MARKER = '--courier-cli';

/** Where the macOS menu item links the launcher (as VS Code does for `code`). */
export const MAC_LINK = '/usr/local/bin/courier';

/** Where the .deb's after-install script links the launcher (resources/linux/after-install.sh). */
export const DEB_LINK = '/usr/bin/courier';

/**
 * The `courier` arguments when the app binary was started as the CLI, otherwise null. The marker
 * counts only before a `--` (after one, everything is the user's); the launchers write
 * `--courier-cli --` so that Chromium takes none of the user's arguments for its own switches.
 */
export function cliArguments(argv: readonly string[]): string[] | null {
  const end = argv.indexOf('--', 1);
  const marker = argv.indexOf(CLI_MARKER, 1);
  if (marker < 0 || (end >= 0 && end < marker)) return null;
  const rest = argv.slice(marker + 1);
  return rest[0] === '--' ? rest.slice(1) : rest;
}

/** What runs `courier` in this process: the prebuilt bundle's entry (src-main/cli.ts). */
export interface CliBundle {
  runAsProcess(argv: string[]): void;
}

/**
 * Runs the prebuilt CLI bundle (dist/cli, the same one npm installs) with these arguments; it
 * exits the process with the command's exit code. A missing bundle is one line and exit code 1.
 */
export async function runCliBundle(
  bundleDir: string,
  args: string[],
  io: { err(text: string): void; exit(code: number): void } = {
    err: (text) => process.stderr.write(`${text}\n`),
    exit: (code) => process.exit(code),
  },
): Promise<void> {
  const entry = join(bundleDir, 'cli.js');
  if (!existsSync(entry)) {
    io.err(
      `courier: this build of the app has no command-line bundle (${entry}): run \`npm run build:cli\`, or reinstall the app`,
    );
    io.exit(1);
    return;
  }
  let cli: CliBundle;
  try {
    cli = (await import(pathToFileURL(entry).href)) as CliBundle;
  } catch (error) {
    io.err(`courier: the command-line bundle (${entry}) could not be loaded: ${String(error)}`);
    io.exit(1);
    return;
  }
  cli.runAsProcess(args);
}

/** The launcher script the app ships in `<resources>/bin` (electron-builder.yml extraResources). */
export function launcherPath(platform: NodeJS.Platform, resourcesPath: string): string {
  return platform === 'win32'
    ? win32.join(resourcesPath, 'bin', 'courier.cmd')
    : posix.join(resourcesPath, 'bin', 'courier');
}

/** A message box, shaped as Electron's `dialog.showMessageBox` takes it. */
export interface Prompt {
  type: 'info' | 'question' | 'warning' | 'error';
  message: string;
  detail?: string;
  buttons?: string[];
  defaultId?: number;
  cancelId?: number;
}

/** What the menu item does on this platform and in this kind of installation. */
export type CliToolAction =
  { kind: 'link'; link: string; target: string } | { kind: 'explain'; prompt: Prompt };

/** Where and how this copy of the app runs, as the menu item needs to know it. */
export interface CliToolHost {
  platform: NodeJS.Platform;
  /** The app's resources folder (`process.resourcesPath`). */
  resourcesPath: string;
  /** The AppImage's own path when the app runs from one (`$APPIMAGE`). */
  appImage?: string;
  /** `PATH` as the app saw it at launch. */
  pathVariable?: string;
  /** Whether `/usr/bin/courier` is the .deb's link to this app's launcher. */
  debLinkInstalled?: boolean;
}

/**
 * What "Install Command-Line Tool…" does: on macOS, a link in /usr/local/bin (after asking); on
 * Windows, the Linux .deb and the AppImage, an explanation, since the installer or the package
 * does the installing there (or, for the AppImage, nothing can).
 */
export function cliToolAction(host: CliToolHost): CliToolAction {
  const launcher = launcherPath(host.platform, host.resourcesPath);
  if (host.platform === 'darwin') return { kind: 'link', link: MAC_LINK, target: launcher };
  if (host.platform === 'win32') {
    const folder = win32.dirname(launcher);
    const onPath = (host.pathVariable ?? '')
      .split(';')
      .some((entry) => normalizeWindowsDir(entry) === normalizeWindowsDir(folder));
    return {
      kind: 'explain',
      prompt: {
        type: 'info',
        message: onPath
          ? 'The courier command is on your PATH: run courier --help in a new terminal.'
          : 'The courier command is not on your PATH yet: run the Catalog Courier installer again and answer Yes to “Add the courier command to your PATH?”.',
        detail: `The command is ${launcher}; the installer adds its folder to your user PATH and its uninstaller takes it out again. You can also add the folder to PATH yourself (Settings › System › About › Advanced system settings › Environment Variables). Open a new terminal afterwards.`,
      },
    };
  }
  if (host.appImage) {
    const quoted = shellQuote(host.appImage);
    return {
      kind: 'explain',
      prompt: {
        type: 'info',
        message: `The AppImage runs the courier command itself: ${quoted} ${CLI_MARKER} -- --help`,
        detail: `For a courier command in your terminal, add this line to ~/.bashrc (or your shell’s start-up file):\n\nalias courier='${quoted.replaceAll("'", "'\\''")} ${CLI_MARKER} --'\n\nIt keeps working as long as the AppImage stays where it is. On a server, or to have courier without the app, install it with Node.js (README, “The command line”).`,
      },
    };
  }
  return {
    kind: 'explain',
    prompt: {
      type: 'info',
      message: host.debLinkInstalled
        ? `The courier command is installed with the package, at ${DEB_LINK}: run courier --help in a terminal.`
        : `The courier command is not on your PATH: link it with sudo ln -s ${shellQuote(launcher)} /usr/local/bin/courier`,
      detail: `The command is ${launcher}. The .deb package installs ${DEB_LINK} and removes it with the app.`,
    },
  };
}

/** Single-quotes a path for a POSIX shell when it needs quoting. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The `osascript` arguments that run a shell command as the administrator, after macOS asks for
 * the password (as VS Code installs `code` where /usr/local/bin isn't writable).
 */
export function adminScriptArgs(command: string): string[] {
  const literal = command.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
  return ['-e', `do shell script "${literal}" with administrator privileges`];
}

/** The shell command that makes the link as the administrator. */
export function linkCommand(link: string, target: string): string {
  return `mkdir -p ${shellQuote(posix.dirname(link))} && ln -sfn ${shellQuote(target)} ${shellQuote(link)}`;
}

/** What the install and uninstall steps need from the machine. */
export interface CliToolDeps {
  /** Shows a message box and resolves to the index of the button chosen. */
  ask(prompt: Prompt): Promise<number>;
  /** Where the path points when it is a link, null when it is absent; throws for a plain file. */
  readLink(path: string): Promise<string | null>;
  /** Whether something (a file, a link, even a broken one) is at the path. */
  exists(path: string): Promise<boolean>;
  mkdir(path: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Runs a shell command as the administrator; false when the user cancelled the prompt. */
  runAsAdmin(command: string): Promise<boolean>;
}

/** How an install or uninstall ended. */
export type CliToolOutcome =
  'installed' | 'already' | 'removed' | 'absent' | 'foreign' | 'cancelled' | 'failed';

/**
 * "Install Command-Line Tool…" on macOS: asks first, then links `link` to the launcher, as the
 * administrator when the folder isn't writable; tells the user how it ended.
 */
export async function installCliLink(
  link: string,
  target: string,
  deps: CliToolDeps,
): Promise<CliToolOutcome> {
  const current = await currentTarget(link, deps);
  if (current === target) {
    await deps.ask({
      type: 'info',
      message: `The courier command is already installed at ${link}.`,
      detail: 'Run courier --help in Terminal.',
    });
    return 'already';
  }
  const replaces =
    current === undefined
      ? ''
      : ` It replaces what is there now (${current ?? 'a file that is not the app’s'}).`;
  const answer = await deps.ask({
    type: 'question',
    message: `Install the courier command at ${link}?`,
    detail: `${link} will be a link to the command inside Catalog Courier, so courier runs in any Terminal window, with the app’s profiles, history and keychain.${replaces} macOS may ask for an administrator’s password.`,
    buttons: ['Install', 'Cancel'],
    defaultId: 0,
    cancelId: 1,
  });
  if (answer !== 0) return 'cancelled';
  try {
    await deps.mkdir(posix.dirname(link));
    if (current !== undefined) await deps.unlink(link);
    await deps.symlink(target, link);
  } catch (error) {
    if (!isPermissionError(error)) return fail('install', link, error, deps);
    try {
      if (!(await deps.runAsAdmin(linkCommand(link, target)))) return 'cancelled';
    } catch (adminError) {
      return fail('install', link, adminError, deps);
    }
  }
  await deps.ask({
    type: 'info',
    message: `The courier command is installed at ${link}.`,
    detail: 'Open a new Terminal window and run courier --help.',
  });
  return 'installed';
}

/** "Uninstall Command-Line Tool…" on macOS: removes the link if it is the app's, and says so. */
export async function uninstallCliLink(
  link: string,
  target: string,
  deps: CliToolDeps,
): Promise<CliToolOutcome> {
  const current = await currentTarget(link, deps);
  if (current === undefined) {
    await deps.ask({ type: 'info', message: `The courier command is not installed at ${link}.` });
    return 'absent';
  }
  if (current !== target) {
    await deps.ask({
      type: 'warning',
      message: `${link} is not Catalog Courier’s courier command, so it was left as it is.`,
      detail: `It ${current === null ? 'is a file' : `points to ${current}`}; remove it yourself if you no longer need it.`,
    });
    return 'foreign';
  }
  try {
    await deps.unlink(link);
  } catch (error) {
    if (!isPermissionError(error)) return fail('uninstall', link, error, deps);
    try {
      if (!(await deps.runAsAdmin(`rm -f ${shellQuote(link)}`))) return 'cancelled';
    } catch (adminError) {
      return fail('uninstall', link, adminError, deps);
    }
  }
  await deps.ask({ type: 'info', message: `The courier command was removed from ${link}.` });
  return 'removed';
}

/** The link's target; null for something that is not a link; undefined when nothing is there. */
async function currentTarget(link: string, deps: CliToolDeps): Promise<string | null | undefined> {
  if (!(await deps.exists(link))) return undefined;
  try {
    return await deps.readLink(link);
  } catch {
    return null;
  }
}

async function fail(
  step: 'install' | 'uninstall',
  link: string,
  error: unknown,
  deps: CliToolDeps,
): Promise<CliToolOutcome> {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  await deps.ask({
    type: 'error',
    message:
      step === 'install'
        ? `The courier command could not be installed at ${link}: ${reason}`
        : `The courier command could not be removed from ${link}: ${reason}`,
    detail:
      'Try again, or make the change in Terminal (README, “From the app: Install Command-Line Tool”).',
  });
  return 'failed';
}

function isPermissionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

function normalizeWindowsDir(dir: string): string {
  return dir
    .trim()
    .replace(/[\\/]+$/, '')
    .toLowerCase();
}

/**
 * The menu's handlers for this copy of the app: on macOS install and uninstall the link (the
 * real file system, the administrator's rights through `osascript`); elsewhere the explanation.
 */
export function cliToolHandlers(
  host: CliToolHost,
  ask: (prompt: Prompt) => Promise<number>,
  deps: Partial<CliToolDeps> = {},
): { installCommandLineTool(): void; uninstallCommandLineTool?(): void } {
  const machine: CliToolDeps = { ...machineDeps(ask), ...deps };
  const launcher = launcherPath(host.platform, host.resourcesPath);
  if (host.platform === 'darwin') {
    return {
      installCommandLineTool: () => void installCliLink(MAC_LINK, launcher, machine),
      uninstallCommandLineTool: () => void uninstallCliLink(MAC_LINK, launcher, machine),
    };
  }
  return {
    installCommandLineTool: () =>
      void (async () => {
        const debLink = await machine.readLink(DEB_LINK).catch(() => null);
        const action = cliToolAction({ ...host, debLinkInstalled: debLink === launcher });
        if (action.kind === 'explain') await machine.ask(action.prompt);
      })(),
  };
}

/** The machine itself: node:fs, and macOS's administrator prompt through `osascript`. */
export function machineDeps(ask: (prompt: Prompt) => Promise<number>): CliToolDeps {
  return {
    ask,
    readLink: async (path) => {
      try {
        return await readlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    exists: (path) =>
      lstat(path).then(
        () => true,
        () => false,
      ),
    mkdir: async (path) => void (await mkdir(path, { recursive: true })),
    symlink: (target, path) => symlink(target, path),
    unlink: (path) => unlink(path),
    runAsAdmin: (command) =>
      new Promise((resolve, reject) => {
        execFile('osascript', adminScriptArgs(command), (error, _stdout, stderr) => {
          if (!error) resolve(true);
          // -128: the user cancelled the password prompt.
          else if (/\(-128\)/.test(stderr)) resolve(false);
          else reject(new Error(stderr.trim() || error.message));
        });
      }),
  };
}
