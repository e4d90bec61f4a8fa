import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../../support/run-cli.js';

describe('the embedded sandbox, shared per data directory', () => {
  let home: string;
  let server: ReturnType<typeof spawn>;
  let baseUrl: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-embedded-'));
    server = spawn(process.execPath, ['scripts/courier.mjs', 'sandbox'], {
      env: { ...process.env, COURIER_HOME: home },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [line] = (await once(server.stdout!, 'data')) as [Buffer];
    baseUrl = (JSON.parse(String(line)) as { base_url: string }).base_url;
  });

  afterAll(async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    await rm(home, { recursive: true, force: true });
  });

  it('records where it listens for other Courier processes', async () => {
    const marker = JSON.parse(await readFile(join(home, 'sandbox', 'running.json'), 'utf8'));
    expect(marker).toMatchObject({ pid: server.pid, info: { base_url: baseUrl } });
  });

  it('is used by a command on the Sandbox profile instead of a second server', async () => {
    const run = await runCli(['profile', 'list', '--json'], { env: { COURIER_HOME: home } });
    expect(run.code).toBe(0);
    const tags = await runCli(['tags', '--limit', '1', '--json'], { env: { COURIER_HOME: home } });
    expect(tags.code).toBe(0);
    const profiles = JSON.parse(
      (await runCli(['profile', 'list', '--json'], { env: { COURIER_HOME: home } })).stdout,
    ) as Array<{ name: string; base_url: string }>;
    expect(profiles.find((p) => p.name === 'Sandbox')?.base_url).toBe(baseUrl);
  });

  it('refuses to start a second server on the same data', async () => {
    const run = await runCli(['sandbox'], { env: { COURIER_HOME: home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`a sandbox already runs for this data directory at ${baseUrl}`);
  });

  it('gives the directory back when it stops', async () => {
    server.kill('SIGTERM');
    const [code] = await once(server, 'exit');
    expect(code).toBe(0);
    await expect(readFile(join(home, 'sandbox', 'running.json'))).rejects.toThrow(/ENOENT/);
  });
});
