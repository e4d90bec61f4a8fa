/**
 * docs/scheduling.md's cron line and systemd unit, run as written (placeholders swapped for a
 * test sandbox): an empty environment plus only the documented variables delivers, a second run
 * sends nothing, and a missing secret fails at once with one line.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { missingFixtureTools, writeTags } from '../../support/audio-fixtures.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { addProfile, isrcOf, makeTaggedTracks } from './delivery-helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`Skipping scheduling tests: missing ${missing.join(', ')}`);

/** The fenced block after `<!-- tested: NAME -->` in docs/scheduling.md. */
async function documented(name: string): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs/scheduling.md'), 'utf8');
  const match = new RegExp(`<!-- tested: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!match) throw new Error(`docs/scheduling.md has no tested ${name} block`);
  return match[1]!;
}

/** The JSON summary in a log that also holds progress lines (one line, or `{` … `}` lines). */
function summaryIn(log: string): Record<string, unknown> {
  const match = /^\{.*\}$|^\{\n[\s\S]*?\n\}$/m.exec(log);
  if (!match) throw new Error(`no JSON summary in:\n${log}`);
  return JSON.parse(match[0]) as Record<string, unknown>;
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(missing.length > 0)('docs/scheduling.md, run as documented', () => {
  let sandbox: TestSandbox;
  let home: string;
  let swap: (text: string) => string;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    home = join(tmpdir(), `courier-sched-${Date.now()}`);
    const courierHome = join(home, '.config', 'catalog-courier');
    await mkdir(join(home, '.courier'), { recursive: true });
    const env = await addProfile(courierHome, sandbox, 'Label');
    await writeFile(join(home, '.courier', 'client_secret'), `${env.COURIER_CLIENT_SECRET}\n`);
    await writeFile(join(home, '.courier', 'secret_access_key'), env.COURIER_SECRET_ACCESS_KEY!);
    const masters = join(home, 'masters');
    await makeTaggedTracks(masters, 3, (i) => `sched-${i}.mp3`);
    const catalog = sandbox.info.catalogs[0]!.id;
    swap = (text) =>
      text
        .replaceAll('/home/label', home)
        .replaceAll('/opt/catalog-courier/', ROOT)
        .replaceAll('/srv/masters/label', masters)
        .replaceAll('3f7c0000-0000-4000-8000-000000000000', catalog);
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
  });

  /** A new tagged master with its own ISRC. */
  const addTrack = async (name: string, i: number) => {
    const path = join(home, 'masters', name);
    await writeFile(path, await readFile(join(home, 'masters', 'sched-1.mp3')));
    await writeTags([
      { path, family: 'id3v2.4', tags: { title: `New ${i}`, isrc: isrcOf(i), artists: ['New'] } },
    ]);
  };

  const sh = async (command: string): Promise<Outcome> =>
    run('/bin/sh', ['-c', command], { env: {}, cwd: '/', timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );

  it('cron: delivers, then sends nothing; without the secret fails at once in one line', async () => {
    const line = swap((await documented('cron')).trim());
    // The schedule's five fields go; the rest is what cron runs.
    const command = line.split(/\s+/).slice(5).join(' ');
    expect(command).toMatch(/^\/usr\/bin\/env -i /);
    const log = join(home, '.courier', 'deliver.log');
    expect((await sh(command)).code).toBe(0);
    const first = summaryIn(await readFile(log, 'utf8'));
    expect(first).toMatchObject({ state: 'accepted', files: 3 });

    await rm(log);
    expect((await sh(command)).code).toBe(0);
    const second = summaryIn(await readFile(log, 'utf8'));
    expect(second).toMatchObject({ state: 'unchanged', unchanged: 3 });

    // A new master, and no secret at all (no file, no keychain in an empty environment): one
    // line, exit 1.
    await addTrack('sched-9.mp3', 99);
    await rm(log);
    const without = command.replace(/COURIER_CLIENT_SECRET_FILE=\S+ /, '');
    expect((await sh(without)).code).toBe(1);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/client_secret/);
  }, 180_000);

  it('systemd: the unit environment and ExecStart, with a credentials directory', async () => {
    const unit = swap(await documented('systemd'));
    const credentials = join(home, 'credentials');
    await mkdir(credentials, { recursive: true });
    for (const name of ['client_secret', 'secret_access_key']) {
      await writeFile(join(credentials, name), await readFile(join(home, '.courier', name)));
    }
    const vars = [...unit.matchAll(/^Environment=(.*)$/gm)].map((m) =>
      m[1]!.replaceAll('%d', credentials),
    );
    const exec = /^ExecStart=(.*)$/m.exec(unit)![1]!;
    await addTrack('sched-4.mp3', 4);
    const outcome = await sh(`/usr/bin/env -i ${vars.join(' ')} ${exec}`);
    expect(outcome.stderr).not.toMatch(/failed/);
    expect(outcome.code).toBe(0);
    expect(summaryIn(outcome.stdout.trim())).toMatchObject({ state: 'accepted' });
  }, 180_000);
});
