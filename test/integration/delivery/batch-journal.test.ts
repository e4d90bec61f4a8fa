/**
 * A delivery's batch states are appended to a journal (one fsynced line per transition) instead
 * of rewriting the record per batch: what a user notices is that exactly-once survives `kill -9`
 * in the middle of a request, that records written before the journal still load and resume,
 * that History lists a delivery without reading its files, tracks or answers, and that a
 * delivery that outlives several tokens asks for one per lifetime and never meets a 401.
 */
import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type DeliveryRecord,
  DeliveryStore,
} from '../../../src-main/core/delivery/delivery-record.js';
import { DeliveryService } from '../../../src-main/core/delivery/delivery-service.js';
import { runDelivery } from '../../../src-main/core/delivery/run-delivery.js';
import { CatalogLedger } from '../../../src-main/core/ledger/catalog-ledger.js';
import type { LoggedRequest } from '../../../src-main/core/sandbox/index.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { createServices } from '../../../src-main/core/services.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { runCli, startCli } from '../../support/run-cli.js';
import { eventually, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import {
  addProfile,
  connectionTo,
  deliverInProcess,
  makeHome,
  makeTaggedTracks,
  planInProcess,
} from './delivery-helpers.js';

const missing = missingFixtureTools();

describe.skipIf(missing.length > 0)('the batch journal', () => {
  let sandbox: TestSandbox;
  let home: string;

  beforeAll(async () => {
    // Every answer takes a while, so a request is in flight long enough to be killed in.
    sandbox = await startTestSandbox({
      faults: { errorRate: 0, throttleRate: 0, slowRate: 1, slowMs: 1_000 },
    });
    home = await makeHome();
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('keeps exactly-once across kill -9 while a request is in flight, and a torn last line', async () => {
    const env = await addProfile(home, sandbox);
    const catalog = sandbox.info.catalogs[0]!.id;
    const dir = join(home, '..', `journal-kill-${Date.now()}`);
    await makeTaggedTracks(dir, 75);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const args = ['deliver', dir, '--profile', 'Test', '--catalog', catalog, '--mode', 'json'];
    const store = new DeliveryStore(home);

    const first = startCli(args, { env, timeoutMs: 120_000 });
    // Killed once the second request is on disk as sent: its answer has not come back yet.
    const atKill = await eventually(
      async () => {
        const [record] = await store.headers();
        return record?.batches[1]?.state === 'sent' ? record : undefined;
      },
      60_000,
      10,
    );
    first.child.kill('SIGKILL');
    await first.done;
    const killed = (await store.load(atKill.id))!;
    expect(killed.batches.map((b) => b.state)).toEqual(['accepted', 'sent', 'pending']);
    // A crash during an append leaves at most a line cut short: it is ignored.
    const journal = (await readdir(join(home, 'deliveries'))).find((n) => /\.journal-/.test(n));
    expect(journal).toBeDefined();
    await appendFile(join(home, 'deliveries', journal!), '{"i":2,"s":{"state":"acc');
    // And the answers file too: the next answer starts on a line of its own.
    await appendFile(join(home, 'deliveries', `${atKill.id}.answers.jsonl`), '{"at":"20');
    expect((await store.load(atKill.id))!.batches.map((b) => b.state)).toEqual([
      'accepted',
      'sent',
      'pending',
    ]);

    // The kill may also fall between request 1's `accepted` line and its ledger append: the
    // ledger then lacks tracks the service holds, which the resumed run records first.
    const ledgerAtKill = await CatalogLedger.open(home, 'Test', catalog);
    expect(ledgerAtKill.size).toBe(25);
    await writeFile(ledgerAtKill.file, '');

    const resumed = await runCli(args, { env, timeoutMs: 120_000 });
    expect(resumed.stderr).toContain(`Resuming delivery ${atKill.id} (1/3 request(s) accepted)`);
    expect(resumed.code).toBe(0);

    const final = (await store.load(atKill.id))!;
    expect(final.state).toBe('accepted');
    // The accepted request was not sent again; the one in flight at the kill was, once more.
    expect(final.batches[0]).toMatchObject({ attempts: 1, sentAt: killed.batches[0]!.sentAt });
    expect(final.batches.map((b) => b.attempts)).toEqual([1, 2, 1]);
    const json = ((await sandbox.api('/sandbox/requests')).body.data as LoggedRequest[]).filter(
      (r) => r.path === '/ingestion/json',
    );
    expect(json.length).toBeGreaterThanOrEqual(3);
    expect(json.length).toBeLessThanOrEqual(4);
    const entries = (await sandbox.api(`/sandbox/catalogs/${catalog}/entries`)).body.data as {
      outer_id: string;
    }[];
    expect(new Set(entries.map((e) => e.outer_id)).size).toBe(75);
    const ledger = await CatalogLedger.open(home, 'Test', catalog);
    expect(ledger.size, 'the ledger names every track the service holds').toBe(75);
    expect(ledger.get(killed.tracks![0]![0]!.outer_id)?.delivery).toBe(atKill.id);
    // Compacted at the end: the record's main file alone says every request was accepted; the
    // answers are in their own file, each read back with its request.
    const names = await readdir(join(home, 'deliveries'));
    expect(names.filter((n) => /\.journal-/.test(n))).toEqual([]);
    const main = JSON.parse(
      await readFile(join(home, 'deliveries', `${atKill.id}.json`), 'utf8'),
    ) as DeliveryRecord;
    expect(main.batches.map((b) => b.state)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(main.batches.some((b) => b.response !== undefined)).toBe(false);
    expect(final.batches.map((b) => b.response?.status)).toEqual([200, 200, 200]);
    await rm(dir, { recursive: true, force: true });
  }, 240_000);
});

describe.skipIf(missing.length > 0)('records and History', () => {
  let sandbox: TestSandbox;
  let home: string;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    home = await makeHome();
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('loads and resumes a record written before the journal (batches in its main file)', async () => {
    const dir = join(home, 'Old');
    await makeTaggedTracks(dir, 60);
    const { plan, store } = await planInProcess(sandbox, home, { mode: 'json', dir });
    const id = plan.record.id;
    // The layout of earlier versions: batches (the first one accepted) in `<id>.json`, no
    // journal, no counts; files and tracks in `<id>.parts.json`.
    const light: Partial<DeliveryRecord> = { ...plan.record };
    for (const newer of ['files', 'tracks', 'journal', 'counts'] as const) delete light[newer];
    const old = {
      ...light,
      state: 'failed',
      error: 'interrupted between batches; run it again to resume',
      batches: plan.record.batches.map((b, i) =>
        i === 0
          ? {
              ...b,
              state: 'accepted',
              attempts: 1,
              sentAt: '2026-01-01T10:00:00.000Z',
              answeredAt: '2026-01-01T10:00:01.000Z',
              // Versions before redaction kept what the service echoed.
              response: { status: 200, body: { count: 25, echo: 'Bearer abc.def-123' } },
            }
          : b,
      ),
    };
    await writeFile(store.fileOf(id), `${JSON.stringify(old, null, 2)}\n`);
    await rm(store.journalOf(id, 1), { force: true });

    const fresh = new DeliveryStore(home);
    const header = await fresh.loadHeader(id);
    expect(header?.counts).toEqual({ files: 60, tracks: 60 });
    const loaded = (await fresh.load(id))!;
    expect(loaded.batches.map((b) => b.state)).toEqual(['accepted', 'pending', 'pending']);
    expect(loaded.batches[0]?.response?.body).toEqual({ count: 25, echo: 'Bearer [redacted]' });
    expect(loaded.files).toHaveLength(60);

    const { api, bucket } = connectionTo(sandbox);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const final = await runDelivery({ record: loaded, store: fresh, api, bucket, dataDir: home });
    expect(final.state).toBe('accepted');
    const json = ((await sandbox.api('/sandbox/requests')).body.data as LoggedRequest[]).filter(
      (r) => r.path === '/ingestion/json',
    );
    // Only the two requests the old record had not sent.
    expect(json.map((r) => r.tracks)).toEqual([25, 10]);
    const reread = (await new DeliveryStore(home).load(id))!;
    expect(reread.batches.map((b) => b.state)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(reread.batches[0]?.response).toEqual({
      status: 200,
      body: { count: 25, echo: 'Bearer [redacted]' },
    });
    // The old answer moved to the answers file with the new ones; the main file holds none.
    const main = await readFile(store.fileOf(id), 'utf8');
    expect(main).not.toContain('"response"');
    const answers = await readFile(store.answersOf(id), 'utf8');
    expect(answers.trim().split(/\n+/)).toHaveLength(3);
    expect(answers).toContain('Bearer [redacted]');
  });

  it('lists History from each record’s header: its files and tracks are not read', async () => {
    const dir = join(home, 'Listed');
    await makeTaggedTracks(dir, 30);
    const { record } = await deliverInProcess(sandbox, home, { mode: 'json', dir });
    expect(record?.state).toBe('accepted');
    const store = new DeliveryStore(home);
    // The heavy part made unreadable: History still lists the delivery whole.
    await writeFile(store.partsOf(record!.id, record!.partsGeneration), '{ not json');
    await expect(store.load(record!.id)).rejects.toThrow();

    const services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    const history = await new DeliveryService(services, {}, 'test').history();
    const item = history.find((d) => d.id === record!.id);
    expect(item).toMatchObject({ state: 'accepted', files: 30, tracks: 30, batches: 2 });
    const detail = await new DeliveryService(services, {}, 'test').detail(record!.id);
    expect(detail.requests.map((r) => [r.state, r.tracks, r.status])).toEqual([
      ['accepted', 25, 200],
      ['accepted', 5, 200],
    ]);
    const csv = await new DeliveryService(services, {}, 'test').historyCsv();
    expect(csv).toContain(record!.id);
    const cli = await runCli(['history', '--json'], { env: { COURIER_HOME: home } });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toContainEqual(
      expect.objectContaining({ id: record!.id, files: 30, tracks: 30, batches_accepted: 2 }),
    );
    // Nor its answers: with them unreadable, the list is whole; a delivery opened says why not.
    await rm(store.answersOf(record!.id));
    await mkdir(store.answersOf(record!.id));
    const listed = await new DeliveryService(services, {}, 'test').history();
    expect(listed.find((d) => d.id === record!.id)).toMatchObject({ state: 'accepted', files: 30 });
    await expect(new DeliveryService(services, {}, 'test').detail(record!.id)).rejects.toThrow(
      /EISDIR/,
    );
  });
});

describe.skipIf(missing.length > 0)('tokens over a long delivery', () => {
  it('asks for one token per lifetime used, renewed ahead of expiry: no request meets a 401', async () => {
    const lifetimeMs = 4_000;
    const sandbox = await startTestSandbox({
      tokenLifetimeMs: lifetimeMs,
      faults: { errorRate: 0, throttleRate: 0, slowRate: 1, slowMs: 250 },
    });
    const home = await makeHome();
    try {
      const dir = join(home, 'Long');
      await makeTaggedTracks(dir, 1_000);
      const { record, api } = await deliverInProcess(sandbox, home, { mode: 'json', dir });
      expect(record?.state).toBe('accepted');
      const requests = (await sandbox.api('/sandbox/requests')).body.data as LoggedRequest[];
      const ours = requests.filter((r) => r.path === '/ingestion/json');
      expect(ours).toHaveLength(40);
      expect(requests.filter((r) => r.status === 401)).toEqual([]);
      const tokens = requests.filter((r) => r.path === '/oauth/access_tokens/client');
      // The span the delivery needed tokens for: its first token to its last request.
      const used = ours.at(-1)!.at - tokens[0]!.at;
      expect(used).toBeGreaterThan(2 * lifetimeMs);
      // At least one per lifetime (no token outlives its expiry), and no more than one per
      // renewal interval (90% of a lifetime) plus the first.
      expect(api.tokenRequests).toBeGreaterThanOrEqual(Math.ceil(used / lifetimeMs));
      expect(api.tokenRequests).toBeLessThanOrEqual(1 + Math.ceil(used / (0.9 * lifetimeMs)));
    } finally {
      await sandbox.close();
      await rm(home, { recursive: true, force: true });
    }
  }, 240_000);
});
