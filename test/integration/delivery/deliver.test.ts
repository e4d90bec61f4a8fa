import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DeliveryStore } from '../../../src-main/core/delivery/delivery-record.js';
import { pickupCheck } from '../../../src-main/core/delivery/history.js';
import { planDelivery } from '../../../src-main/core/delivery/plan.js';
import { prepareDelivery } from '../../../src-main/core/delivery/prepare.js';
import { runDelivery } from '../../../src-main/core/delivery/run-delivery.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import {
  connectionTo,
  deliverInProcess,
  isrcOf,
  makeHome,
  makeTaggedTracks,
} from './delivery-helpers.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`Skipping delivery tests: missing ${missing.join(', ')}`);

interface Entry {
  outer_id: string;
  mode: string;
  ingestion_id: string;
  metadata: Record<string, unknown>;
}
interface Request {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  tracks: number | null;
}

describe.skipIf(missing.length > 0)('deliveries against the sandbox', () => {
  let sandbox: TestSandbox;
  let home: string;
  const entries = async (): Promise<Entry[]> =>
    (await sandbox.api(`/sandbox/catalogs/${sandbox.info.catalogs[0]!.id}/entries`)).body.data;
  const ingestions = async (): Promise<Request[]> =>
    ((await sandbox.api('/sandbox/requests')).body.data as Request[]).filter((r) =>
      r.path.startsWith('/ingestion/'),
    );

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('delivers 60 tagged tracks in json mode as three requests of at most 25', async () => {
    home = await makeHome();
    const dir = join(home, 'Masters 60');
    await makeTaggedTracks(dir, 60);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });

    const { record, api } = await deliverInProcess(sandbox, home, { mode: 'json', dir });
    expect(record?.state).toBe('accepted');
    expect(record!.batches.map((b) => b.state)).toEqual(['accepted', 'accepted', 'accepted']);
    // Each answer is kept on disk, and read back with the record.
    const onDisk = (await new DeliveryStore(home).load(record!.id))!;
    expect(onDisk.batches.every((b) => b.response?.status === 200)).toBe(true);

    const sent = await ingestions();
    expect(sent.map((r) => r.tracks)).toEqual([25, 25, 10]);
    expect(sent.every((r) => r.status === 200 && r.query.catalog_id === record!.catalogId)).toBe(
      true,
    );
    expect(api.tokenRequests).toBe(1);

    const stored = await entries();
    const ours = stored.filter((e) => e.ingestion_id === record!.options.ingestion_id);
    expect(ours).toHaveLength(60);
    const byId = new Map(ours.map((e) => [e.outer_id, e]));
    // The default outer_id is the (valid, unique) ISRC; the metadata is the tags'.
    expect(byId.get(isrcOf(7))?.metadata).toMatchObject({
      outer_id: isrcOf(7),
      title: 'Track 7',
      isrc: isrcOf(7),
      primary_media: `${record!.folder}/007.mp3`,
      artists: [{ name: 'Artist 7' }],
    });

    // delete_delivered_file (the default): the service took every file.
    const s3 = sandbox.s3();
    expect((await pickupCheck(s3, sandbox.info.bucket.bucket_name, record!)).pickedUp).toBe(true);

    // Running the finished record again sends nothing.
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const again = await runDelivery({
      record: record!,
      store: new DeliveryStore(home),
      ...connectionTo(sandbox),
      dataDir: home,
    });
    expect(again.state).toBe('accepted');
    expect(await ingestions()).toEqual([]);
  });

  it('re-sends a batch whose answer was lost after the service took its audio', async () => {
    home = await makeHome();
    const dir = join(home, 'Lost answer');
    await makeTaggedTracks(dir, 5);
    const { record } = await deliverInProcess(sandbox, home, { mode: 'json', dir });
    expect(record?.state).toBe('accepted');
    const s3 = sandbox.s3();
    expect((await pickupCheck(s3, sandbox.info.bucket.bucket_name, record!)).pickedUp).toBe(true);

    // As if the process died after the request left but before its answer was recorded.
    const batch = record!.batches[0]!;
    batch.state = 'sent';
    delete batch.response;
    record!.state = 'ingesting';
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });
    const again = await runDelivery({
      record: record!,
      store: new DeliveryStore(home),
      ...connectionTo(sandbox),
      dataDir: home,
    });
    expect(again.error).toBeUndefined();
    expect(again.state).toBe('accepted');
    expect(again.batches[0]).toMatchObject({ state: 'accepted', attempts: 2 });
    // The moved audio was uploaded again, then the batch re-sent once and accepted.
    expect(again.bytes.sent).toBeGreaterThan(0);
    expect((await ingestions()).map((r) => r.status)).toEqual([200]);
    const ours = (await entries()).filter((e) => e.metadata.title?.toString().startsWith('Track'));
    expect(new Set(ours.map((e) => e.outer_id)).size).toBeGreaterThanOrEqual(5);
  });

  it('delivers audio_only: files flat in the folder, the file name as outer_id', async () => {
    home = await makeHome();
    const dir = join(home, 'Only');
    await makeTaggedTracks(join(dir, 'disc 1'), 2, (i) => `only-a${i}.mp3`);
    await makeTaggedTracks(join(dir, 'disc 2'), 1, (i) => `only-b${i}.mp3`);
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });

    const { record } = await deliverInProcess(sandbox, home, {
      mode: 'audio_only',
      dir,
      options: { delete_delivered_file: false },
    });
    expect(record?.state).toBe('accepted');
    expect(record!.files.map((f) => f.key)).toEqual([
      `delivery/audio/${record!.folder}/only-a1.mp3`,
      `delivery/audio/${record!.folder}/only-a2.mp3`,
      `delivery/audio/${record!.folder}/only-b1.mp3`,
    ]);
    const sent = await ingestions();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      path: '/ingestion/audio_only',
      query: { delivery_dir_path: record!.folder, delete_delivered_file: 'false' },
    });
    const ids = (await entries()).filter((e) => e.mode === 'audio_only').map((e) => e.outer_id);
    expect(ids).toEqual(expect.arrayContaining(['only-a1.mp3', 'only-a2.mp3', 'only-b1.mp3']));
    // delete_delivered_file=false: the files stay in the delivery folder.
    const left = await pickupCheck(sandbox.s3(), sandbox.info.bucket.bucket_name, record!);
    expect(left.remaining).toHaveLength(3);
  });

  it('delivers audio_mapping with a stored mapping file', async () => {
    home = await makeHome();
    const dir = join(home, 'Mapped');
    await makeTaggedTracks(dir, 2, (i) => `MAP00${i}_Song ${i}_20240102.mp3`);

    const { record } = await deliverInProcess(sandbox, home, {
      mode: 'audio_mapping',
      dir,
      mapping: { separator: '_', columns: ['outer_id', 'title', 'release_date'] },
    });
    expect(record?.state).toBe('accepted');
    expect(record!.mapping?.storage).toBe('file');
    const mapped = (await entries()).filter((e) => e.outer_id.startsWith('MAP00'));
    expect(mapped.map((e) => e.outer_id).sort()).toEqual(['MAP001', 'MAP002']);
    expect(mapped[0]!.metadata).toMatchObject({ title: expect.stringMatching(/^Song \d$/) });
    const objects = await sandbox.s3().send(
      new ListObjectsV2Command({
        Bucket: sandbox.info.bucket.bucket_name,
        Prefix: 'delivery/mapping/',
      }),
    );
    expect(objects.Contents?.map((o) => o.Key)).toContain(
      `delivery/mapping/${record!.mapping!.name}`,
    );
  });

  it('media_fetch_type=download: URLs from a CSV, nothing uploaded', async () => {
    home = await makeHome();
    const [audio] = await makeTaggedTracks(join(home, 'served'), 1);
    const body = await readFile(audio!);
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': body.length });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const csv = join(home, 'urls.csv');
      await writeFile(
        csv,
        `outer_id,primary_media,title\nURL1,http://127.0.0.1:${port}/a.mp3,Remote One\nURL2,http://127.0.0.1:${port}/b.mp3,Remote Two\n`,
      );
      const prepared = await prepareDelivery({
        dir: home,
        mode: 'json',
        metadataCsv: csv,
        download: true,
      });
      const { api, bucket } = connectionTo(sandbox);
      const plan = planDelivery({
        profile: { name: 'Test', environment: 'development' },
        bucket: bucket.bucket,
        catalogId: sandbox.info.catalogs[0]!.id,
        mode: 'json',
        dir: home,
        options: { media_fetch_type: 'download' },
        files: prepared.files,
        tracks: prepared.tracks,
      });
      expect(plan.blocked).toBe(false);
      expect(plan.record.files).toEqual([]);
      await sandbox.api('/sandbox/requests', { method: 'DELETE' });
      const store = new DeliveryStore(home);
      await store.save(plan.record);
      const record = await runDelivery({ record: plan.record, store, api, bucket, dataDir: home });
      expect(record.error).toBeUndefined();
      expect(record.state).toBe('accepted');
      const sent = await ingestions();
      expect(sent).toHaveLength(1);
      expect(sent[0]!.query.media_fetch_type).toBe('download');
      const remote = (await entries()).filter((e) => e.outer_id.startsWith('URL'));
      expect(remote.map((e) => e.metadata.title).sort()).toEqual(['Remote One', 'Remote Two']);
    } finally {
      server.close();
    }
  });

  it('blocks a mapping that does not fit some file names, before any network call', async () => {
    home = await makeHome();
    const dir = join(home, 'Unfit');
    await makeTaggedTracks(dir, 3, (i) =>
      i === 2 ? 'no-separator-here.mp3' : `FIT${i}_Title.mp3`,
    );
    await sandbox.api('/sandbox/requests', { method: 'DELETE' });

    const { plan, record } = await deliverInProcess(sandbox, home, {
      mode: 'audio_mapping',
      dir,
      mapping: { separator: '_', columns: ['outer_id', 'title'] },
    });
    expect(record).toBeUndefined();
    expect(plan.blocked).toBe(true);
    const errors = plan.findings.filter((f) => f.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path).toBe('no-separator-here.mp3');
    expect(await ingestions()).toEqual([]);
    expect(await readdir(home)).not.toContain('deliveries');
  });
});

describe.skipIf(missing.length > 0)('deliveries through faults', () => {
  let home: string;
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('gets through injected 500s and 429s', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const sandbox = await startTestSandbox({
      faults: { errorRate: 0.25, throttleRate: 0.1, slowRate: 0, slowMs: 0 },
      random,
    });
    try {
      home = await makeHome();
      const dir = join(home, 'Faulty');
      await makeTaggedTracks(dir, 30);
      const { record } = await deliverInProcess(sandbox, home, { mode: 'json', dir });
      expect(record?.error).toBeUndefined();
      expect(record?.state).toBe('accepted');
      const requests = (await sandbox.api('/sandbox/requests')).body.data as Request[];
      expect(requests.some((r) => r.status >= 500 || r.status === 429)).toBe(true);
      const stored = (await sandbox.api(`/sandbox/catalogs/${record!.catalogId}/entries`)).body
        .data as Entry[];
      expect(stored).toHaveLength(30);
    } finally {
      await sandbox.close();
    }
  });

  it('renews a token that expires mid-delivery', async () => {
    const sandbox = await startTestSandbox({
      tokenLifetimeMs: 1_500,
      faults: { errorRate: 0, throttleRate: 0, slowRate: 1, slowMs: 600 },
    });
    try {
      home = await makeHome();
      const dir = join(home, 'Expiring');
      await makeTaggedTracks(dir, 60);
      const { record, api } = await deliverInProcess(sandbox, home, { mode: 'json', dir });
      expect(record?.error).toBeUndefined();
      expect(record?.state).toBe('accepted');
      expect(api.tokenRequests).toBeGreaterThan(1);
      const stored = (await sandbox.api(`/sandbox/catalogs/${record!.catalogId}/entries`)).body
        .data as Entry[];
      expect(stored).toHaveLength(60);
    } finally {
      await sandbox.close();
    }
  });
});
