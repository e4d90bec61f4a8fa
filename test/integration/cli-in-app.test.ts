/**
 * The `courier` command inside the app (#19). The launcher the installers ship
 * (resources/cli/courier, as <resources>/bin/courier) runs the app binary with the CLI marker,
 * found through the links /usr/local/bin/courier (macOS) or /usr/bin/courier (.deb) make to it.
 * Electron can't run here, so "the app binary" is a stand-in: one that prints the argv it got
 * (every argument must arrive as typed, and its exit code come back), and one that does what
 * entry.ts does (test/support/fake-app-binary.ts) with the real CLI bundle, against the real
 * Secret Service, to show the app and its CLI share one data directory and one keychain.
 */
import { execFile, spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createServices } from '../../src-main/core/services.js';
import { CLI_MARKER, cliArguments } from '../../src-main/electron/cli-tool.js';
import { keychainTier } from '../support/keychain-tier.js';
import type { SecretService } from '../support/secret-service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = join(ROOT, 'resources', 'cli', 'courier');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command as a terminal would, with this environment, and waits for it. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...out }));
  });
}

/** Writes an executable file (a stand-in for the app binary, or a copy of the launcher). */
async function executable(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  await chmod(path, 0o755);
}

/** Prints the arguments it was given as JSON and exits with `FAKE_EXIT` (0 by default). */
const ECHO_APP = `#!${process.execPath}
process.stdout.write(JSON.stringify(process.argv.slice(2)));
process.exit(Number(process.env.FAKE_EXIT ?? 0));
`;

/** Arguments a shell would mangle if the launcher quoted them badly. */
const TRICKY = [
  'deliver',
  '/Music/My Album/Disc 1',
  "it's",
  'say "hi"',
  'Beyoncé — Déjà vu ✓',
  '',
  '$HOME',
  '*',
  '  spaced  ',
  'line\nbreak',
  '--profile=Label',
  '--',
  CLI_MARKER,
];

describe('the courier launcher', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-launcher-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('on Linux (.deb), through /usr/bin/courier, hands every argument to the app unchanged', async () => {
    const opt = join(dir, 'opt', 'Catalog Courier');
    await executable(join(opt, 'catalog-courier'), ECHO_APP);
    await mkdir(join(opt, 'resources', 'bin'), { recursive: true });
    await copyFile(LAUNCHER, join(opt, 'resources', 'bin', 'courier'));
    await chmod(join(opt, 'resources', 'bin', 'courier'), 0o755);
    // A relative link, as update-alternatives-style tools make.
    const usrBin = join(dir, 'usr', 'bin');
    await mkdir(usrBin, { recursive: true });
    await symlink('../../opt/Catalog Courier/resources/bin/courier', join(usrBin, 'courier'));

    const result = await run(join(usrBin, 'courier'), TRICKY);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const argv = JSON.parse(result.stdout) as string[];
    expect(argv).toEqual([CLI_MARKER, '--', ...TRICKY]);
    // What the app then runs: exactly the arguments typed.
    expect(cliArguments(['/opt/Catalog Courier/catalog-courier', ...argv])).toEqual(TRICKY);
  });

  it('on macOS, through /usr/local/bin/courier, finds the app in the .app and returns its exit code', async () => {
    const app = join(dir, 'Applications', 'Catalog Courier.app', 'Contents');
    await executable(join(app, 'MacOS', 'Catalog Courier'), ECHO_APP);
    await mkdir(join(app, 'Resources', 'bin'), { recursive: true });
    await copyFile(LAUNCHER, join(app, 'Resources', 'bin', 'courier'));
    await chmod(join(app, 'Resources', 'bin', 'courier'), 0o755);
    const usrLocalBin = join(dir, 'usr', 'local', 'bin');
    await mkdir(usrLocalBin, { recursive: true });
    await symlink(join(app, 'Resources', 'bin', 'courier'), join(usrLocalBin, 'courier'));

    for (const code of [0, 1, 2, 3]) {
      const result = await run(join(usrLocalBin, 'courier'), ['upload', 'a b'], {
        ...process.env,
        FAKE_EXIT: String(code),
      });
      expect(result.code).toBe(code);
      expect(JSON.parse(result.stdout)).toEqual([CLI_MARKER, '--', 'upload', 'a b']);
    }
  });

  it('says so in one line when the app is not beside it', async () => {
    const orphan = join(dir, 'orphan', 'resources', 'bin', 'courier');
    await mkdir(dirname(orphan), { recursive: true });
    await copyFile(LAUNCHER, orphan);
    await chmod(orphan, 0o755);
    const result = await run(orphan, ['--help']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^courier: Catalog Courier is not installed beside this command \(.*\): reinstall the app, or remove .*\n$/,
    );
  });
});

const service = await keychainTier();

describe.skipIf(!service)('courier run through the app binary', () => {
  let dir: string;
  let courier: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The bundle npm installs is the one the app runs (dist/cli, packed into app.asar).
    await promisify(execFile)(process.execPath, ['scripts/build-cli.mjs'], {
      cwd: ROOT,
      timeout: 120_000,
    });
    dir = await mkdtemp(join(tmpdir(), 'courier-in-app-'));
    const opt = join(dir, 'opt', 'Catalog Courier');
    await executable(
      join(opt, 'catalog-courier'),
      `#!/bin/sh\nexec '${process.execPath}' --import tsx '${join(ROOT, 'test', 'support', 'fake-app-binary.ts')}' "$@"\n`,
    );
    courier = join(opt, 'resources', 'bin', 'courier');
    await mkdir(dirname(courier), { recursive: true });
    await copyFile(LAUNCHER, courier);
    await chmod(courier, 0o755);
    // No COURIER_HOME, no COURIER_KEYCHAIN_SERVICE: the defaults the app itself uses.
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      ...(service as SecretService).env,
    };
    process.env.DBUS_SESSION_BUS_ADDRESS = (service as SecretService).env.DBUS_SESSION_BUS_ADDRESS;
  }, 180_000);

  afterAll(async () => {
    const app = createServices(env, { source: 'app' });
    await app.profiles.remove('Label').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await service?.stop();
  });

  it('sees the profile and the secrets the app saved: one data directory, one keychain', async () => {
    // What main.ts does: the app's services from its environment.
    const app = createServices(env, { source: 'app' });
    expect(app.dataDir).toBe(join(dir, 'config', 'Catalog Courier'));
    await app.profiles.save(
      {
        name: 'Label',
        environment: 'staging',
        base_url: 'https://api.example.com',
        client_id: 'label-client',
        bucket: {
          bucket_name: 'label-deliveries',
          bucket_region: 'eu-west-1',
          access_key_id: 'AKIAEXAMPLE',
        },
        catalogs: [{ id: '3f7c0000-0000-4000-8000-000000000001', name: 'Main' }],
      },
      { client_secret: 'app-saved-client-secret', secret_access_key: 'app-saved-s3-secret' },
    );

    const result = await run(courier, ['profile', 'list', '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const profiles = JSON.parse(result.stdout) as Array<{ name: string; secrets?: object }>;
    expect(profiles.find((p) => p.name === 'Label')).toMatchObject({
      name: 'Label',
      secrets: { client_secret: true, secret_access_key: true },
    });
  });

  it('answers --version and usage errors as the installed CLI does, with its exit codes', async () => {
    const version = await run(courier, ['--version'], env);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const unknown = await run(courier, ['no-such-command'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      "courier: unknown command 'no-such-command' (see courier --help)\n",
    );
  });
});
