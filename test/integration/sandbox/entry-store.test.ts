/* eslint-disable @typescript-eslint/no-explicit-any -- answers are untyped JSON whose shape these tests check */
import { type ChildProcess, spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EntryStore } from '../../../src-main/core/sandbox/entry-store.js';
import { loadOrCreateIdentity } from '../../../src-main/core/sandbox/identity.js';
import { type Entry, ENTRY_PAGE_LIMIT } from '../../../src-main/core/sandbox/index.js';
import { createS3Client } from '../../../src-main/core/storage/s3-client.js';
import { bucketTarget, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

const STORE_CHILD = fileURLToPath(new URL('../../support/entry-store-child.ts', import.meta.url));
/** Processing that never moves an entry during a test. */
const IDLE = { analysisMs: 3_600_000, productIntervalMs: 3_600_000 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'courier-entry-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function entry(catalogId: string, outerId: string, version = 1, state: Entry['state'] = 'stored') {
  return {
    catalog_id: catalogId,
    outer_id: outerId,
    mode: 'json',
    ingestion_id: String(version),
    metadata: { outer_id: outerId, title: `Track ${outerId}`, version },
    audio_key: null,
    state,
    created_at: 1,
    updated_at: version,
  } satisfies Entry;
}

/** A data directory with an identity, and the id of its first catalog. */
async function dataDirWithCatalog(name: string): Promise<{ dataDir: string; catalog: string }> {
  const dataDir = join(dir, name);
  const identity = await loadOrCreateIdentity(dataDir, Date.now());
  return { dataDir, catalog: identity.catalogs[0]!.id };
}

/** Every entry of a catalog through the inspection route, page after page. */
async function allEntries(sandbox: TestSandbox, catalog: string): Promise<any[]> {
  const entries: any[] = [];
  for (;;) {
    const answer = await sandbox.api(
      `/sandbox/catalogs/${catalog}/entries?offset=${entries.length}`,
    );
    expect(answer.status).toBe(200);
    entries.push(...answer.body.data);
    if (entries.length >= answer.body.total_size) return entries;
  }
}

function logFile(dataDir: string, catalog: string): string {
  return join(dataDir, 'entries', `${catalog}.jsonl`);
}

describe('sandbox entry store', () => {
  it('keeps 100,000 entries put in requests of 25 across a restart, in order, overwritten ones moved to the end', async () => {
    const { dataDir, catalog } = await dataDirWithCatalog('hundred-thousand');
    const store = await EntryStore.open(dataDir, [catalog]);
    const ids = Array.from({ length: 100_000 }, (_, i) => `T${String(i).padStart(6, '0')}`);
    for (let i = 0; i < ids.length; i += 25)
      await store.put(ids.slice(i, i + 25).map((id) => entry(catalog, id, 1, 'available')));
    // Re-delivered tracks: each moves to the end, carrying its new version.
    const again = ['T000000', 'T050000', 'T099999'];
    await store.put(again.map((id) => entry(catalog, id, 2, 'available')));
    await store.close();

    const sandbox = await startTestSandbox({ dataDir, timings: IDLE });
    try {
      const first = await sandbox.api(`/sandbox/catalogs/${catalog}/entries`);
      expect(first.body.data).toHaveLength(ENTRY_PAGE_LIMIT);
      expect(first.body.total_size).toBe(100_000);
      const entries = await allEntries(sandbox, catalog);
      const expected = [...ids.filter((id) => !again.includes(id)), ...again];
      expect(entries.map((e) => e.outer_id)).toEqual(expected);
      expect(entries.slice(-3).map((e) => e.metadata.version)).toEqual([2, 2, 2]);
      expect(entries[0]).toEqual(entry(catalog, 'T000001', 1, 'available'));
    } finally {
      await sandbox.close();
    }
  }, 600_000);

  it('pages and filters the inspection route by offset, limit, state and outer_id', async () => {
    const { dataDir, catalog } = await dataDirWithCatalog('filters');
    const store = await EntryStore.open(dataDir, [catalog]);
    await store.put([
      entry(catalog, 'A', 1, 'available'),
      entry(catalog, 'B', 1, 'analyzed'),
      entry(catalog, 'C', 1, 'available'),
      entry(catalog, 'D', 1, 'available'),
    ]);
    await store.close();
    const sandbox = await startTestSandbox({ dataDir, timings: IDLE });
    try {
      const path = `/sandbox/catalogs/${catalog}/entries`;
      const ids = async (query: string) => {
        const answer = await sandbox.api(`${path}?${query}`);
        expect(answer.status).toBe(200);
        return { ids: answer.body.data.map((e: any) => e.outer_id), total: answer.body.total_size };
      };
      expect(await ids('offset=1&limit=2')).toEqual({ ids: ['B', 'C'], total: 4 });
      expect(await ids('state=available&offset=1')).toEqual({ ids: ['C', 'D'], total: 3 });
      expect(await ids('state=analyzed,stored')).toEqual({ ids: ['B'], total: 1 });
      expect(await ids('outer_id=D&outer_id=A&outer_id=nope')).toEqual({
        ids: ['A', 'D'],
        total: 2,
      });
      expect(await ids('state=available&limit=0')).toEqual({ ids: [], total: 3 });
      const bad = await sandbox.api(`${path}?limit=${ENTRY_PAGE_LIMIT + 1}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toContain('limit must be an integer from 0 to');
      const badState = await sandbox.api(`${path}?state=done`);
      expect(badState.status).toBe(400);
      expect(badState.body.error.message).toContain("not 'done'");
    } finally {
      await sandbox.close();
    }
  });

  it('reads a catalog stored by an earlier version as one JSON document, and continues it as a log', async () => {
    const { dataDir, catalog } = await dataDirWithCatalog('migration');
    const old = [entry(catalog, 'OLD-1', 1, 'available'), entry(catalog, 'OLD-2', 3, 'available')];
    await mkdir(join(dataDir, 'entries'), { recursive: true });
    await writeFile(join(dataDir, 'entries', `${catalog}.json`), JSON.stringify(old));

    const sandbox = await startTestSandbox({ dataDir, timings: IDLE });
    try {
      expect(await allEntries(sandbox, catalog)).toEqual(old);
      expect(await readdir(join(dataDir, 'entries'))).not.toContain(`${catalog}.json`);
    } finally {
      await sandbox.stop();
    }
    const store = await EntryStore.open(dataDir, [catalog]);
    await store.put([entry(catalog, 'NEW-1')]);
    await store.close();
    const reopened = await EntryStore.open(dataDir, [catalog]);
    expect(reopened.list(catalog).map((e) => e.outer_id)).toEqual(['OLD-1', 'OLD-2', 'NEW-1']);
    await reopened.close();
  });

  it('cuts off a torn last line and refuses, naming the file, a damaged line before the end', async () => {
    const { dataDir, catalog } = await dataDirWithCatalog('torn');
    const store = await EntryStore.open(dataDir, [catalog]);
    await store.put([entry(catalog, 'KEPT-1'), entry(catalog, 'KEPT-2')]);
    await store.close();
    const file = logFile(dataDir, catalog);
    const whole = await readFile(file, 'utf8');
    await appendFile(file, `[{"catalog_id":"${catalog}","outer_id":"TORN`);

    const reopened = await EntryStore.open(dataDir, [catalog]);
    expect(reopened.list(catalog).map((e) => e.outer_id)).toEqual(['KEPT-1', 'KEPT-2']);
    expect(await readFile(file, 'utf8')).toBe(whole);
    await reopened.put([entry(catalog, 'AFTER')]);
    await reopened.close();
    const again = await EntryStore.open(dataDir, [catalog]);
    expect(again.list(catalog).map((e) => e.outer_id)).toEqual(['KEPT-1', 'KEPT-2', 'AFTER']);
    await again.close();

    await writeFile(file, `${whole}not json\n${whole}`);
    await expect(startTestSandbox({ dataDir, timings: IDLE })).rejects.toThrow(
      `The sandbox's entry log ${file} is damaged at line 2`,
    );
  });

  it('rewrites a log holding more than twice its live entries, keeping every entry and the order', async () => {
    const { dataDir, catalog } = await dataDirWithCatalog('compaction');
    const policy = { ratio: 2, minRecords: 100 };
    const store = await EntryStore.open(dataDir, [catalog], policy);
    const ids = Array.from({ length: 60 }, (_, i) => `C${i}`);
    await store.put(ids.map((id) => entry(catalog, id)));
    for (let version = 2; version <= 5; version++)
      for (let i = 0; i < ids.length; i += 10)
        await store.put(ids.slice(i, i + 10).map((id) => entry(catalog, id, version)));
    // 60 + 240 records were written; the log was rewritten whenever it passed 120.
    expect(store.logSize(catalog)).toBeLessThanOrEqual(120);
    const before = store.list(catalog);
    await store.close();
    const lines = (await readFile(logFile(dataDir, catalog), 'utf8')).trimEnd().split('\n');
    expect(lines.flatMap((line) => JSON.parse(line)).length).toBeLessThanOrEqual(120);
    const reopened = await EntryStore.open(dataDir, [catalog], policy);
    expect(reopened.list(catalog)).toEqual(before);
    expect(before.map((e) => e.metadata.version)).toEqual(ids.map(() => 5));
    await reopened.close();
  });

  it('loses no answered entry when killed during a compaction, and ignores its unfinished file', async () => {
    const { dataDir, catalog } = await dataDirWithCatalog('compaction-crash');
    const live = 20_000;
    await mkdir(join(dataDir, 'entries'), { recursive: true });
    // node --import tsx (rather than npx tsx) so that the process we SIGKILL is the writer itself.
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', STORE_CHILD, dataDir, catalog, String(live), '500'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    const acked = new Map<number, number>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const { from, to, version } = JSON.parse(line) as {
        from: number;
        to: number;
        version: number;
      };
      for (let i = from; i < to; i++) acked.set(i, version);
    });
    // Killed the moment a compaction starts writing its new log.
    let killedDuringCompaction = false;
    const watcher = watch(join(dataDir, 'entries'), (_event, name) => {
      if (name === `${catalog}.jsonl.compacting` && acked.size === live) {
        killedDuringCompaction = true;
        child.kill('SIGKILL');
      }
    });
    try {
      expect(await exited, stderr).toBe('SIGKILL');
    } finally {
      watcher.close();
    }
    expect(killedDuringCompaction).toBe(true);
    // The answers read before the kill are all the child acknowledged (its pipe is drained).
    await new Promise((resolve) => setTimeout(resolve, 100));

    const store = await EntryStore.open(dataDir, [catalog]);
    try {
      expect(await readdir(join(dataDir, 'entries'))).not.toContain(`${catalog}.jsonl.compacting`);
      const entries = store.list(catalog);
      expect(entries).toHaveLength(live);
      const byId = new Map(entries.map((e) => [e.outer_id, e.metadata.version as number]));
      const behind = [...acked].filter(
        ([i, version]) => (byId.get(`CRASH-${String(i).padStart(6, '0')}`) ?? -1) < version,
      );
      expect(behind).toEqual([]);
    } finally {
      await store.close();
    }
  }, 300_000);
});

describe('sandbox killed mid-delivery', () => {
  it('keeps every entry it answered for, after kill -9 of `courier sandbox` during ingestion', async () => {
    const dataDir = join(dir, 'killed-cli');
    const child = spawn(
      process.execPath,
      ['scripts/courier.mjs', 'sandbox', '--data', dataDir, '--analysis-ms', '50'],
      { cwd: process.cwd(), env: { ...process.env, COURIER_HOME: join(dir, 'home') } },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    const info = JSON.parse(
      await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error(`sandbox exited before printing: ${stderr}`)));
      }),
    );
    const catalog = info.catalogs[0].id as string;
    const tokenRes = await fetch(`${info.base_url}/oauth/access_tokens/client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: info.client_id, client_secret: info.client_secret }),
    });
    const token = ((await tokenRes.json()) as any).data.token as string;
    const s3 = createS3Client(bucketTarget(info.bucket));
    await s3.send(
      new PutObjectCommand({
        Bucket: info.bucket.bucket_name,
        Key: 'delivery/audio/kill/a.wav',
        Body: 'RIFF....WAVE',
      }),
    );
    s3.destroy();

    const answered: string[] = [];
    let sent = 0;
    const send = async (): Promise<void> => {
      for (;;) {
        const batch = Array.from({ length: 25 }, (_, k) => ({
          outer_id: `K${String(sent * 25 + k).padStart(6, '0')}`,
          primary_media: 'kill/a.wav',
          title: 'Killed',
        }));
        sent += 1;
        const res = await fetch(
          `${info.base_url}/ingestion/json?catalog_id=${catalog}&delete_delivered_file=false`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(batch),
          },
        ).catch(() => undefined);
        if (!res) return;
        expect(res.status).toBe(200);
        answered.push(...batch.map((t) => t.outer_id));
        if (answered.length >= 50 * 25) child.kill('SIGKILL');
      }
    };
    // Four clients at once, so requests are in flight at the kill.
    await Promise.all([send(), send(), send(), send()]);
    expect(await exited).toBe('SIGKILL');
    await appendFile(logFile(dataDir, catalog), '[{"catalog_id":"torn');

    const sandbox = await startTestSandbox({ dataDir, timings: IDLE });
    try {
      // One page: processing reorders entries as it moves them, so no paging across it.
      const page = await sandbox.api(`/sandbox/catalogs/${catalog}/entries`);
      expect(page.body.total_size).toBeLessThanOrEqual(ENTRY_PAGE_LIMIT);
      const stored = new Set(page.body.data.map((e: any) => e.outer_id));
      expect(await readFile(logFile(dataDir, catalog), 'utf8')).not.toContain('torn');
      expect(answered.length).toBeGreaterThanOrEqual(50 * 25);
      expect(answered.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await sandbox.close();
    }
  }, 300_000);
});

describe('sandbox request log', () => {
  it('keeps the last 1,000 requests in full and counts every one since it was cleared', async () => {
    const sandbox = await startTestSandbox({ timings: IDLE });
    try {
      await sandbox.api('/sandbox/requests', { method: 'DELETE' });
      for (let i = 0; i < 1_100; i += 50)
        await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            sandbox.api(`/lexicology/tags?limit=1&offset=${i + k + 1}`),
          ),
        );
      await sandbox.api('/nope');
      const answer = await sandbox.api('/sandbox/requests');
      expect(answer.body.data).toHaveLength(1_000);
      expect(answer.body).toMatchObject({ offset: 101, size: 1_000, total_size: 1_101 });
      expect(answer.body.data.at(-1)).toMatchObject({ path: '/nope', status: 404 });
      const offsets = answer.body.data.slice(0, -1).map((r: any) => Number(r.query.offset));
      expect(new Set(offsets).size).toBe(999);
      expect(Math.min(...offsets)).toBeGreaterThan(100);
      const summary = await sandbox.api('/sandbox/requests/summary');
      expect(summary.body.data).toEqual({
        total: 1_101,
        by_path: { '/lexicology/tags': 1_100, '/nope': 1 },
        by_status: { '200': 1_100, '404': 1 },
        tracks: 0,
      });
      await sandbox.api('/sandbox/requests', { method: 'DELETE' });
      expect((await sandbox.api('/sandbox/requests/summary')).body.data.total).toBe(0);
    } finally {
      await sandbox.close();
    }
  });
});
