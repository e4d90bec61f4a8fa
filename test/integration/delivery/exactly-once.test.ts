/**
 * The cases of issue #14 at the level a user meets them: the real `courier` process against the
 * sandbox. Unicode twins, a lone NFD name, two processes on one delivery, exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { makeTaggedTracks, useCliSandbox } from './delivery-helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const missing = missingFixtureTools();
const composed = 'Caf\u00e9';
const decomposed = 'Cafe\u0301';

interface Request {
  method: string;
  path: string;
  status: number;
  tracks: number | null;
}

describe.skipIf(missing.length > 0)('courier deliver: exactly once', () => {
  // Every API answer takes a while, so a second process can meet the first one running.
  const cli = useCliSandbox({
    faults: { errorRate: 0, throttleRate: 0, slowRate: 1, slowMs: 700 },
  });
  const deliver = cli.deliver;

  it.each(['audio_only', 'audio_mapping'])(
    'blocks two names that differ only in Unicode form (%s): exit 3, both paths named',
    async (mode) => {
      const dir = join(cli.home, '..', `twins-${mode}-${Date.now()}`);
      await makeTaggedTracks(dir, 2, (i) => `${i === 1 ? composed : decomposed}_X1.mp3`);
      const run = await deliver(dir, mode, '--separator', '_', '--columns', 'title,outer_id');
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`'${composed}_X1.mp3'`);
      expect(run.stderr).toContain(`'${composed}_X1.mp3 (decomposed)'`);
      expect((await cli.sandbox.api('/sandbox/requests')).body.data).not.toContainEqual(
        expect.objectContaining({ path: expect.stringContaining(mode) }),
      );
      await rm(dir, { recursive: true, force: true });
    },
  );

  it('blocks twins in sub-folders in json mode, and delivers a lone NFD name', async () => {
    const dir = join(cli.home, '..', `twins-json-${Date.now()}`);
    await makeTaggedTracks(join(dir, 'sub'), 2, (i) => `${i === 1 ? composed : decomposed}.mp3`);
    const blocked = await deliver(dir, 'json');
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toContain('NFC');
    await rm(join(dir, 'sub', `${composed}.mp3`));
    const run = await deliver(dir, 'json', '--json');
    expect(run.stderr).toContain('accepted');
    expect(run.code).toBe(0);
    const { folder } = JSON.parse(run.stdout) as { folder: string };
    const entries = (await cli.sandbox.api(`/sandbox/catalogs/${cli.catalog}/entries`)).body
      .data as {
      primary_media?: string;
    }[];
    expect(JSON.stringify(entries)).toContain(`${folder}/sub/${composed}.mp3`);
    await rm(dir, { recursive: true, force: true });
  });

  it('lets one process work on a delivery: a second is told who holds it, exit 2', async () => {
    const dir = join(cli.home, '..', `race-${Date.now()}`);
    await makeTaggedTracks(dir, 60);
    await cli.sandbox.api('/sandbox/requests', { method: 'DELETE' });
    // --all: other tests of this catalog delivered some of these same tracks already.
    const args = [
      'deliver',
      dir,
      '--profile',
      'Test',
      '--catalog',
      cli.catalog,
      '--mode',
      'json',
      '--all',
    ];
    const first = spawn(process.execPath, ['scripts/courier.mjs', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...cli.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let firstErr = '';
    const firstDone = new Promise<number | null>((done) => first.once('close', done));
    await new Promise<void>((started, fail) => {
      first.stderr.on('data', (chunk: Buffer) => {
        firstErr += chunk.toString();
        if (/^Delivery \S+: 60 file/m.test(firstErr)) started();
      });
      void firstDone.then(() => fail(new Error(`the first run ended early: ${firstErr}`)));
    });
    const second = await runCli(args, { env: cli.env });
    expect(second.code).toBe(2);
    expect(second.stderr.trim()).toMatch(
      /^courier deliver: This delivery \(add --wait to wait for it\) is in use by another Courier process \(pid \d+, courier deliver, since .*\); wait for it to finish or stop it\.$/,
    );
    expect(await firstDone).toBe(0);
    const requests = (await cli.sandbox.api('/sandbox/requests')).body.data as Request[];
    const accepted = requests.filter((r) => r.path.includes('/ingestion/json') && r.status < 300);
    expect(accepted.map((r) => r.tracks)).toEqual([25, 25, 10]);
    await rm(dir, { recursive: true, force: true });
  });

  it('answers bad input with one line and the README exit code', async () => {
    const dir = join(cli.home, '..', `bad-${Date.now()}`);
    await makeTaggedTracks(dir, 1);
    const cases: [string[], number, RegExp][] = [
      [['--metadata', join(dir, 'missing.csv')], 2, /--metadata: '.*missing\.csv' is not a file/],
      [['--profile', 'Nobody'], 2, /No profile named "Nobody"/],
    ];
    for (const [more, code, line] of cases) {
      const run = await deliver(dir, 'json', ...more);
      expect(run.code).toBe(code);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(line);
    }
    const upload = await runCli(['upload', dir, '--profile', 'Test', '--to', '../x'], {
      env: cli.env,
    });
    expect(upload.code).toBe(2);
    expect(upload.stderr.trim().split('\n')).toHaveLength(1);
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a control character in a file name escaped, and blocks it (exit 3)', async () => {
    const dir = join(cli.home, '..', `ctl-${Date.now()}`);
    await mkdir(dir, { recursive: true });
    await makeTaggedTracks(dir, 1, () => 'bell\u0007.mp3');
    await writeFile(join(dir, 'notes.txt'), 'not audio');
    const run = await deliver(dir, 'audio_only');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('bell\\u0007.mp3');
    expect(run.stderr).not.toContain('\u0007');
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the findings of a blocked dry-run once: the plan on stdout, one line naming the first on stderr', async () => {
    const dir = join(cli.home, '..', `dry-${Date.now()}`);
    await makeTaggedTracks(dir, 1);
    await writeFile(join(dir, 'empty.mp3'), '');
    // json reads the file's tags too: the empty file is still one finding, not one per reader.
    for (const mode of ['audio_only', 'json'] as const) {
      const run = await deliver(dir, mode, '--dry-run');
      expect(run.code).toBe(3);
      expect(run.stdout.match(/empty file \(0 bytes\)/g), mode).toHaveLength(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        'courier deliver: validation blocks this delivery (1 error(s), first: empty.mp3: empty file (0 bytes)); nothing was sent',
      ]);
    }
    await rm(dir, { recursive: true, force: true });
  });
});
