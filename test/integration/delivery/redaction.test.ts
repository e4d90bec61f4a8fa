/**
 * Issue #14: a service that echoes the bearer token back (in a 200 and in a 500 body) must not
 * get it onto stderr, stdout, the delivery records, `courier history` or the log.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ProfileStore } from '../../../src-main/core/profiles/profile-store.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { startEchoingService } from '../../fakes/echoing-service.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { makeHome, makeTaggedTracks } from './delivery-helpers.js';

const missing = missingFixtureTools();

/** Every file under `dir` with its text. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  const out: { path: string; text: string }[] = [];
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    out.push({ path, text: await readFile(path, 'utf8') });
  }
  return out;
}

describe.skipIf(missing.length > 0)('a service that echoes the bearer token', () => {
  const token = `tok_${randomBytes(24).toString('hex')}`;
  let sandbox: TestSandbox;
  let api: Awaited<ReturnType<typeof startEchoingService>>;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    api = await startEchoingService(token);
    home = await makeHome();
    dir = join(home, '..', `echo-${Date.now()}`);
    await makeTaggedTracks(dir, 26);
    const { info } = sandbox;
    await new ProfileStore(home, new MemorySecretStore(), {}).save({
      name: 'Echo',
      environment: 'development',
      base_url: api.url,
      client_id: 'echo-client',
      bucket: {
        bucket_name: info.bucket.bucket_name,
        bucket_region: info.bucket.bucket_region,
        access_key_id: info.bucket.access_key_id,
        endpoint: info.bucket.endpoint,
      },
      catalogs: info.catalogs.map(({ id, name }) => ({ id, name })),
    });
    env = {
      COURIER_HOME: home,
      COURIER_CLIENT_SECRET: 'echo-client-secret-value',
      COURIER_SECRET_ACCESS_KEY: info.bucket.secret_access_key,
    };
  });
  afterAll(async () => {
    await api?.stop();
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  it('never shows it on stderr, in records, in history or in the log', async () => {
    const catalog = sandbox.info.catalogs[0]!.id;
    const deliver = await runCli(
      ['deliver', dir, '--profile', 'Echo', '--catalog', catalog, '--mode', 'json', '--yes'],
      { env },
    );
    // Batch 1 was accepted (its 200 echoed the token), batch 2 failed on 500s that echoed it.
    expect(deliver.code).not.toBe(0);
    expect(deliver.stderr).toMatch(/batch 2 of 2 failed/);

    const history = await runCli(['history', '--json'], { env });
    expect(history.code).toBe(0);
    const csv = await runCli(['history', '--csv'], { env });
    expect(csv.code).toBe(0);

    const records = await filesUnder(join(home, 'deliveries'));
    const logs = await filesUnder(join(home, 'logs'));
    expect(records.length).toBeGreaterThan(0);
    // The echoes did reach the record, redacted.
    const main = records.find((r) => r.path.endsWith('.json') && !r.path.endsWith('.parts.json'));
    const answers = records.find((r) => r.path.endsWith('.answers.jsonl'));
    expect(`${main?.text}${answers?.text}`).toContain('Bearer [redacted]');
    expect(`${main?.text}${answers?.text}`).toContain('token was [redacted]');

    const secrets = [token, 'echo-client-secret-value', sandbox.info.bucket.secret_access_key];
    const outputs: [string, string][] = [
      ['deliver stdout', deliver.stdout],
      ['deliver stderr', deliver.stderr],
      ['history --json', history.stdout + history.stderr],
      ['history --csv', csv.stdout + csv.stderr],
      ...records.map((r): [string, string] => [r.path, r.text]),
      ...logs.map((l): [string, string] => [l.path, l.text]),
    ];
    for (const [where, text] of outputs) {
      for (const secret of secrets) {
        expect(text.includes(secret), `${where} holds a secret`).toBe(false);
      }
    }
  });
});
