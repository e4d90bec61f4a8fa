import { spawn } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type DeliveryHeader,
  DeliveryStore,
} from '../../../src-main/core/delivery/delivery-record.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { eventually, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { addProfile, isrcOf, makeHome, makeTaggedTracks } from './delivery-helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const missing = missingFixtureTools();

interface Request {
  method: string;
  path: string;
  status: number;
  tracks: number | null;
}

/** Every file below `dir`, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length))
    .sort();
}

/** The records on disk as Courier reads them (main file and batch journal folded). */
async function records(home: string): Promise<DeliveryHeader[]> {
  const store = new DeliveryStore(home);
  const ids = (await store.headers()).map((r) => r.id);
  return Promise.all(ids.map(async (id) => (await store.loadHeader(id, { answers: true }))!));
}

describe.skipIf(missing.length > 0)('courier deliver, upload and history', () => {
  let sandbox: TestSandbox;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let catalog: string;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    home = await makeHome();
    env = await addProfile(home, sandbox);
    catalog = sandbox.info.catalogs[0]!.id;
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('--dry-run prints the plan and changes nothing locally or remotely', async () => {
    const dir = join(home, '..', `dry-${Date.now()}`);
    await makeTaggedTracks(dir, 30);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const before = await tree(home);
    const run = await runCli(
      ['deliver', dir, '--profile', 'Test', '--catalog', catalog, '--mode', 'json', '--dry-run'],
      { env },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('batch 1: 25 track(s)');
    expect(run.stdout).toContain('batch 2: 5 track(s)');
    expect(run.stdout).toMatch(/folder: delivery\/audio\/\d{8}-dry-\d+\//);
    // As in the app's pre-flight: the tags give no artist ids, so the names are sent as ids.
    expect(run.stdout).toContain(
      '30 artists are sent with their names as their ids ("Artist 1", "Artist 2", "Artist 3", "Artist 4", "Artist 5", …); to send your own, set them in the Library',
    );
    expect(await tree(home)).toEqual(before);
    expect((await sandbox.api('/sandbox/requests')).body.data).toEqual([]);
    const listing = await sandbox
      .s3()
      .send(
        new ListObjectsV2Command({ Bucket: sandbox.info.bucket.bucket_name, Prefix: 'delivery/' }),
      );
    // Only the bucket's folder markers (keys ending in '/') are there.
    expect((listing.Contents ?? []).filter((o) => !o.Key!.endsWith('/'))).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 3 when validation blocks the delivery (two files with one name)', async () => {
    const dir = join(home, '..', `dup-${Date.now()}`);
    await makeTaggedTracks(join(dir, 'a'), 1, () => 'same.mp3');
    await makeTaggedTracks(join(dir, 'b'), 1, () => 'same.mp3');
    const run = await runCli(
      ['deliver', dir, '--profile', 'Test', '--catalog', catalog, '--mode', 'audio_only'],
      { env },
    );
    expect(run.code).toBe(3);
    // The reasons are on stderr, one line each, with the verdict last; stdout stays empty.
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("'a/same.mp3' and 'b/same.mp3'");
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(/validation blocks this delivery/);
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a production profile without --yes', async () => {
    const prodEnv = await addProfile(home, sandbox, 'Prod', 'production');
    const run = await runCli(
      ['deliver', home, '--profile', 'Prod', '--catalog', catalog, '--mode', 'audio_only'],
      { env: prodEnv },
    );
    expect(run.stderr).toContain('production profile; add --yes');
    expect(run.code).toBe(2);
  });

  it('audio_mapping from a mapping file, sent inline', async () => {
    const dir = join(home, '..', `map-${Date.now()}`);
    await makeTaggedTracks(dir, 2, (i) => `CLIMAP${i}-Inline ${i}.mp3`);
    const mappingFile = join(dir, '..', `mapping-${Date.now()}.yaml`);
    await writeFile(
      mappingFile,
      "mapping:\n  - separator: '-'\n  - column_0: outer_id\n  - column_1: title\n",
    );
    const run = await runCli(
      [
        'deliver',
        dir,
        '--profile',
        'Test',
        '--catalog',
        catalog,
        '--mode',
        'audio_mapping',
        '--mapping',
        mappingFile,
        '--inline-mapping',
        '--json',
      ],
      { env },
    );
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(0);
    const requests = (await sandbox.api('/sandbox/requests')).body.data as (Request & {
      query: Record<string, string>;
    })[];
    const call = requests.filter((r) => r.path === '/ingestion/audio_mapping').pop()!;
    expect(call.query.mapping_content).toContain('column_1: title');
    expect(call.query.mapping_filename).toBeUndefined();
    const entries = (await sandbox.api(`/sandbox/catalogs/${catalog}/entries`)).body.data as {
      outer_id: string;
      metadata: { title?: string };
    }[];
    expect(entries.find((e) => e.outer_id === 'CLIMAP1')?.metadata.title).toBe('Inline 1');
    await rm(dir, { recursive: true, force: true });
  });

  it('stops an unknown catalog in the pre-flight: one line, exit 2 (a usage error), nothing uploaded or recorded', async () => {
    const dir = join(home, '..', `unknown-catalog-${Date.now()}`);
    await makeTaggedTracks(dir, 2);
    const before = (await records(home)).length;
    const unknown = '00000000-0000-4000-8000-000000000000';
    const args = ['deliver', dir, '--profile', 'Test', '--catalog', unknown, '--mode', 'json'];
    const run = await runCli(args, { env });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^courier deliver: pre-flight: catalog 0{8}-.* is not one of profile "Test"'s catalogs .*nothing was uploaded$/,
      ),
    ]);
    expect(run.stderr).not.toContain('resume');
    expect((await records(home)).length).toBe(before);
    // The dry-run says it first: the profile alone tells.
    const dry = await runCli([...args, '--dry-run'], { env });
    expect(dry.code).toBe(2);
    expect(dry.stderr.trim().split('\n').at(-1)).toMatch(
      /^courier deliver: catalog 0{8}-.* is not one of profile "Test"'s catalogs \(.*\); check the id/,
    );
    expect(dry.stdout).toMatch(/is not one of profile "Test"'s catalogs/);
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 1 when the service refuses a batch, with its answer in the record', async () => {
    const dir = join(home, '..', `refused-${Date.now()}`);
    await makeTaggedTracks(dir, 2);
    // A catalog the profile names but the service does not know: only the service can refuse it.
    const stale = '00000000-0000-4000-8000-000000000001';
    const staleEnv = await addProfile(home, sandbox, 'Stale', 'development', [
      { id: stale, name: 'Gone' },
    ]);
    const args = ['deliver', dir, '--profile', 'Stale', '--catalog', stale, '--mode', 'json'];
    const run = await runCli([...args, '--json'], { env: staleEnv });
    expect(run.stderr).toContain('failed');
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ state: 'failed', batches_failed: 1, batches_accepted: 0 });
    const record = (await records(home)).find((r) => r.id === summary.delivery_id)!;
    expect(record.batches[0]!.response?.status).toBeGreaterThanOrEqual(400);
    expect(record.batches[0]!.response?.body).toBeTruthy();
    // Re-running resumes the same delivery (and fails the same way).
    const again = await runCli(args, { env: staleEnv });
    expect(again.stderr).toContain(`Resuming delivery ${summary.delivery_id}`);
    expect(again.code).toBe(1);
    await rm(dir, { recursive: true, force: true });
  });

  it('merges --metadata CSV over the tags (by ISRC; empty cells keep the tag)', async () => {
    const dir = join(home, '..', `meta-${Date.now()}`);
    await makeTaggedTracks(dir, 2);
    const csv = join(dir, '..', `meta-${Date.now()}.csv`);
    await writeFile(csv, `isrc,title,lyrics\n${isrcOf(1)},CSV Title,\n${isrcOf(2)},,Some words\n`);
    const run = await runCli(
      [
        'deliver',
        dir,
        '--profile',
        'Test',
        '--catalog',
        catalog,
        '--mode',
        'json',
        '--metadata',
        csv,
        '--ingestion-id',
        'csv-merge',
      ],
      { env },
    );
    expect(run.code).toBe(0);
    const entries = (await sandbox.api(`/sandbox/catalogs/${catalog}/entries`)).body.data as {
      outer_id: string;
      ingestion_id: string;
      metadata: { title?: string; lyrics?: string };
    }[];
    const ours = new Map(
      entries.filter((e) => e.ingestion_id === 'csv-merge').map((e) => [e.outer_id, e]),
    );
    expect(ours.get(isrcOf(1))?.metadata.title).toBe('CSV Title');
    expect(ours.get(isrcOf(2))?.metadata).toMatchObject({ title: 'Track 2', lyrics: 'Some words' });
    await rm(dir, { recursive: true, force: true });
  });

  it('courier upload: a second run sends nothing', async () => {
    const dir = join(home, '..', `up-${Date.now()}`);
    await makeTaggedTracks(dir, 3);
    const args = ['upload', dir, '--profile', 'Test', '--to', 'upload-test', '--json'];
    const first = await runCli(args, { env });
    expect(first.stderr).toContain('3 uploaded');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ ok: true, uploaded: 3, skipped: 0 });
    const second = await runCli(args, { env });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      ok: true,
      uploaded: 0,
      skipped: 3,
      bytes_sent: 0,
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers with --json and lists it in history', async () => {
    const dir = join(home, '..', `cli-${Date.now()}`);
    await makeTaggedTracks(dir, 4);
    const run = await runCli(
      // --all: earlier tests delivered these same tracks (same ISRCs, same bytes) to this catalog.
      [
        'deliver',
        dir,
        '--profile',
        'Test',
        '--catalog',
        catalog,
        '--mode',
        'json',
        '--json',
        '--all',
      ],
      { env },
    );
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ state: 'accepted', files: 4, batches: 1, batches_accepted: 1 });
    const history = await runCli(['history', '--json'], { env });
    expect(JSON.parse(history.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: summary.delivery_id, tracks: 4 })]),
    );
    const pickup = await runCli(['history', '--pickup', summary.delivery_id, '--json'], { env });
    expect(JSON.parse(pickup.stdout)).toMatchObject({ pickedUp: true, remaining: [] });
    const csv = await runCli(['history', '--csv'], { env });
    expect(csv.stdout.split('\n')[0]).toContain('id,state,profile');
    await rm(dir, { recursive: true, force: true });
  });
});

describe.skipIf(missing.length > 0)('courier deliver killed between batches', () => {
  let sandbox: TestSandbox;
  let home: string;

  beforeAll(async () => {
    // Slow answers make the window between batches wide enough to kill the process in it.
    sandbox = await startTestSandbox({
      faults: { errorRate: 0, throttleRate: 0, slowRate: 1, slowMs: 1_200 },
    });
    home = await makeHome();
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('resumes after kill -9: no accepted batch sent twice, every entry present', async () => {
    const env = await addProfile(home, sandbox);
    const catalog = sandbox.info.catalogs[0]!.id;
    const dir = join(home, '..', `kill-${Date.now()}`);
    await makeTaggedTracks(dir, 75);
    const args = ['deliver', dir, '--profile', 'Test', '--catalog', catalog, '--mode', 'json'];

    const child = spawn(process.execPath, ['scripts/courier.mjs', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const atKill = await eventually(
      async () => {
        const [record] = await records(home);
        return record?.batches[0]?.state === 'accepted' ? record : undefined;
      },
      60_000,
      20,
    );
    child.kill('SIGKILL');
    await exited;
    const killed = (await records(home))[0]!;
    expect(killed.state).not.toBe('accepted');
    expect(killed.batches.filter((b) => b.state === 'accepted').length).toBeLessThan(3);
    const firstSentAt = atKill.batches[0]!.sentAt;

    const resumed = await runCli(args, { env, timeoutMs: 120_000 });
    expect(resumed.stderr).toContain(`Resuming delivery ${killed.id}`);
    expect(resumed.code).toBe(0);

    const [final] = await records(home);
    expect(final!.id).toBe(killed.id);
    expect(final!.state).toBe('accepted');
    for (const batch of killed.batches.filter((b) => b.state === 'accepted')) {
      // An accepted batch is never sent again: same attempt count, same send time.
      expect(final!.batches[batch.index]).toMatchObject({ attempts: 1, sentAt: batch.sentAt });
    }
    expect(final!.batches[0]!.sentAt).toBe(firstSentAt);
    const json = ((await sandbox.api('/sandbox/requests')).body.data as Request[]).filter(
      (r) => r.path === '/ingestion/json',
    );
    const unfinishedAtKill = killed.batches.filter((b) => b.state === 'sent').length;
    expect(json.length).toBeGreaterThanOrEqual(3);
    expect(json.length).toBeLessThanOrEqual(3 + unfinishedAtKill);
    const entries = (await sandbox.api(`/sandbox/catalogs/${catalog}/entries`)).body.data as {
      outer_id: string;
    }[];
    expect(new Set(entries.map((e) => e.outer_id)).size).toBe(75);
    await rm(dir, { recursive: true, force: true });
  }, 180_000);
});
