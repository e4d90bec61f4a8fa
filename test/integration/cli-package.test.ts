/**
 * The installable `courier` (#19): `npm pack` gives a package that `npm install -g` installs
 * into a fresh prefix, after which the installed command — the prebuilt bundle in dist/cli, no
 * tsx or esbuild at run time — answers --help, runs the embedded sandbox, scans, uploads and
 * delivers to it, as a label's IT person would on a server with only Node.js.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`the package test needs ${missing.join(', ')}`);
  console.warn(`Skipping the installed-package test: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('courier installed from npm pack', () => {
  let work: string;
  let courier: string;
  let env: NodeJS.ProcessEnv;
  let stopSandbox: (() => Promise<void>) | undefined;
  let catalog: string;

  const installed = (args: string[]) =>
    run(courier, args, { env, timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? 1,
        stdout: error.stdout ?? '',
        stderr: error.stderr ?? '',
      }),
    );

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'courier-package-'));
    const { stdout } = await run('npm', ['pack', '--pack-destination', work, '--silent'], {
      cwd: ROOT,
      timeout: 180_000,
    });
    const tarball = join(work, stdout.trim().split('\n').at(-1)!);
    const prefix = join(work, 'prefix');
    await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      { timeout: 300_000 },
    );
    courier = join(prefix, 'bin', 'courier');
    env = { ...process.env, COURIER_HOME: join(work, 'home') };
    delete env.COURIER_CLIENT_SECRET;
    delete env.COURIER_SECRET_ACCESS_KEY;
    const masters = join(work, 'masters');
    await mkdir(masters, { recursive: true });
    for (const n of [1, 2]) {
      await makeTaggedAudio('mp3', join(masters, `0${n} Song ${n}.mp3`), 'id3v2.4', {
        title: `Song ${n}`,
        artists: ['Ines Vale'],
        isrc: `GBAYE260040${n}`,
      });
    }
  }, 420_000);

  afterAll(async () => {
    await stopSandbox?.();
    await rm(work, { recursive: true, force: true });
  });

  it('packs the prebuilt bundle and its launcher, not the sources', async () => {
    const { stdout } = await run('tar', ['-tzf', join(work, 'catalog-courier-0.1.0.tgz')]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/bin/courier.mjs');
    expect(files).toContain('package/dist/cli/cli.js');
    expect(files).toContain('package/dist/cli/scan-worker.js');
    expect(files.filter((f) => f.startsWith('package/src-main/'))).toEqual([]);
    const bundle = await readFile(
      join(work, 'prefix', 'lib', 'node_modules', 'catalog-courier', 'dist', 'cli', 'cli.js'),
      'utf8',
    );
    expect(bundle).not.toMatch(/from ['"](esbuild|tsx)['"]/);
  });

  it('answers --help and --version', async () => {
    const help = await installed(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['profile', 'scan', 'upload', 'deliver', 'sandbox']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect((await installed(['--version'])).stdout.trim()).toBe(version);
  });

  it('runs the sandbox, then scans, uploads and delivers to it', async () => {
    const sandbox = spawn(courier, ['sandbox', '--port', '0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stopSandbox = async () => {
      if (sandbox.exitCode !== null) return;
      sandbox.kill('SIGTERM');
      await once(sandbox, 'exit');
    };
    const [line] = (await once(sandbox.stdout, 'data')) as [Buffer];
    const info = JSON.parse(line.toString('utf8').split('\n')[0]!) as {
      catalogs: { id: string }[];
    };
    catalog = info.catalogs[0]!.id;
    const masters = join(work, 'masters');

    const scan = await installed(['scan', masters, '--json']);
    expect(scan.code, scan.stderr).toBe(0);
    expect((JSON.parse(scan.stdout) as { file: string }[]).map((f) => f.file)).toEqual([
      '01 Song 1.mp3',
      '02 Song 2.mp3',
    ]);

    const upload = await installed([
      'upload',
      masters,
      '--profile',
      'Sandbox',
      '--to',
      'package-test',
    ]);
    expect(upload.code, upload.stderr).toBe(0);

    const deliver = await installed([
      'deliver',
      masters,
      '--profile',
      'Sandbox',
      '--catalog',
      catalog,
      '--mode',
      'json',
      '--wait',
    ]);
    expect(deliver.code, deliver.stderr).toBe(0);
    expect(deliver.stdout + deliver.stderr).toMatch(
      /^Delivery \S+ accepted: 1 request\(s\), 2 track\(s\)\.$/m,
    );
  }, 180_000);
});
