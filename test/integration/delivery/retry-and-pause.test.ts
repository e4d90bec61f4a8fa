import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { DeliveryRecord } from '../../../src-main/core/delivery/delivery-record.js';
import { PauseGate } from '../../../src-main/core/delivery/pause-gate.js';
import { runDelivery } from '../../../src-main/core/delivery/run-delivery.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { connectionTo, makeHome, makeTaggedTracks, planInProcess } from './delivery-helpers.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`Skipping retry tests: missing ${missing.join(', ')}`);

interface Request {
  path: string;
  status: number;
  tracks: number | null;
}

describe.skipIf(missing.length > 0)('retrying failed files and pausing the ingest', () => {
  let sandbox: TestSandbox;
  let home: string;
  /** Tracks per ingestion request since the last clear, in order. */
  const ingested = async (): Promise<Array<number | null>> =>
    ((await sandbox.api('/sandbox/requests')).body.data as Request[])
      .filter((r) => r.path.startsWith('/ingestion/') && r.status === 200)
      .map((r) => r.tracks);
  const entriesOf = async (record: DeliveryRecord) =>
    (
      (await sandbox.api(`/sandbox/catalogs/${record.catalogId}/entries`)).body.data as Array<{
        ingestion_id: string;
        metadata: { primary_media: string };
      }>
    ).filter((e) => e.metadata.primary_media.startsWith(`${record.folder}/`));

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /** A saved, planned json delivery of `count` tagged tracks, not run yet. */
  async function planned(name: string, count: number) {
    home = await makeHome();
    const dir = join(home, name);
    const paths = await makeTaggedTracks(dir, count);
    const { plan, store } = await planInProcess(sandbox, home, { mode: 'json', dir });
    expect(plan.blocked).toBe(false);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const run = (extra: Partial<Parameters<typeof runDelivery>[0]> = {}) =>
      runDelivery({
        record: plan.record,
        store,
        ...connectionTo(sandbox),
        dataDir: home,
        ...extra,
      });
    return { record: plan.record, store, paths, run };
  }

  it('sends the requests a failed file does not hold back, then retries just the chosen failed files', async () => {
    const { record, store, paths, run } = await planned('Retry', 60);
    const keyOf = (n: number) =>
      record.files.find((f) => f.path === `${String(n).padStart(3, '0')}.mp3`)!.key;
    // Two masters become unreadable before the run: 003 (request 1) and 030 (request 2).
    await rename(paths[2]!, `${paths[2]}.away`);
    await rename(paths[29]!, `${paths[29]}.away`);

    const first = await run();
    expect(first.state).toBe('failed');
    expect(first.batches.map((b) => b.state)).toEqual(['pending', 'pending', 'accepted']);
    expect(first.files.filter((f) => f.state === 'failed').map((f) => f.path)).toEqual([
      '003.mp3',
      '030.mp3',
    ]);
    expect(first.error).toMatch(
      /2 file\(s\) could not be uploaded.*003\.mp3.*2 of 3 request\(s\) not sent/,
    );
    expect(await ingested()).toEqual([10]);

    // 003 is readable again: retrying it sends request 1 only; 030 and its request wait.
    await rename(`${paths[2]}.away`, paths[2]!);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const second = await run({ retryKeys: [keyOf(3)] });
    expect(second.state).toBe('failed');
    expect(second.batches.map((b) => b.state)).toEqual(['accepted', 'pending', 'accepted']);
    expect(second.files.find((f) => f.path === '030.mp3')?.state).toBe('failed');
    expect(await ingested()).toEqual([25]);

    // "Retry failed": the last one; the accepted requests are never sent again.
    await rename(`${paths[29]}.away`, paths[29]!);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const third = await run();
    expect(third.error).toBeUndefined();
    expect(third.state).toBe('accepted');
    expect(await ingested()).toEqual([25]);
    expect(third.batches.map((b) => b.attempts)).toEqual([1, 1, 1]);
    expect((await entriesOf(third)).length).toBe(60);

    // The record on disk shows each retry and which files it took.
    const saved = (await store.load(record.id))!;
    expect(saved.runs).toBe(3);
    expect(saved.retries?.map((r) => ({ run: r.run, files: r.files }))).toEqual([
      { run: 2, files: ['003.mp3'] },
      { run: 3, files: ['030.mp3'] },
    ]);
    expect(saved.files.every((f) => f.state === 'confirmed' && !f.error)).toBe(true);
  });

  it('pausing during the ingest stops after the request in flight and resumes with the next', async () => {
    const { record, store, run } = await planned('Pause ingest', 60);
    let stopped!: () => void;
    const atGate = new Promise<void>((resolve) => (stopped = resolve));
    const gate = new PauseGate({ onWait: () => stopped() });
    const done = run({
      pause: gate,
      // The user pauses while the first request is in flight.
      onEvent: (event) => {
        if (event.type === 'batch' && event.index === 0 && event.state === 'sent') gate.pause();
      },
    });

    await atGate;
    expect(gate.waiting).toBe(true);
    const paused = (await store.load(record.id))!;
    expect(paused.state).toBe('ingesting');
    expect(paused.batches.map((b) => b.state)).toEqual(['accepted', 'pending', 'pending']);
    expect(await ingested()).toEqual([25]);

    gate.resume();
    const final = await done;
    expect(final.state).toBe('accepted');
    expect(await ingested()).toEqual([25, 25, 10]);
    expect(final.batches.map((b) => b.attempts)).toEqual([1, 1, 1]);
  });
});
