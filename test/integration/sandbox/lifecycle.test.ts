/* eslint-disable @typescript-eslint/no-explicit-any -- answers are untyped JSON whose shape these tests check */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { faultsFromEnv } from '../../../src-main/core/sandbox/index.js';
import { eventually, startTestSandbox } from '../../support/sandbox.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'courier-sandbox-life-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox restart', () => {
  it('keeps identity, entries, bucket contents and tokens across a restart on the same data directory', async () => {
    const dataDir = join(dir, 'restart');
    const first = await startTestSandbox({ dataDir });
    const catalog = first.info.catalogs[0]!.id;
    const bucket = first.info.bucket.bucket_name;
    await first
      .s3()
      .send(
        new PutObjectCommand({ Bucket: bucket, Key: 'delivery/audio/r/a.wav', Body: 'kept audio' }),
      );
    await first
      .s3()
      .send(new PutObjectCommand({ Bucket: bucket, Key: 'delivery/metadata/m.csv', Body: 'a,b' }));
    const ingest = await first.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      json: [{ outer_id: 'R-1', primary_media: 'r/a.wav', title: 'Kept' }],
    });
    expect(ingest.status).toBe(200);
    const token = await first.token();
    const before = (await first.api(`/sandbox/catalogs/${catalog}/entries`)).body.data;
    await first.stop();

    const second = await startTestSandbox({ dataDir });
    try {
      const stable = (info: typeof first.info) => ({
        ...info,
        base_url: '',
        bucket: { ...info.bucket, endpoint: '' },
      });
      expect(stable(second.info)).toEqual(stable(first.info));
      const after = (
        await second.api(`/sandbox/catalogs/${catalog}/entries`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).body.data;
      expect(after.map((e: any) => [e.outer_id, e.metadata, e.audio_key])).toEqual(
        before.map((e: any) => [e.outer_id, e.metadata, e.audio_key]),
      );
      const s3 = second.s3();
      const audio = await s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: after[0].audio_key }),
      );
      expect(await audio.Body!.transformToString()).toBe('kept audio');
      const csv = await s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: 'delivery/metadata/m.csv' }),
      );
      expect(await csv.Body!.transformToString()).toBe('a,b');
    } finally {
      await second.stop();
    }
  });
});

describe('sandbox processing across a restart', () => {
  it('finishes analysis and product computation left unfinished by a stop', async () => {
    const dataDir = join(dir, 'resume');
    const slow = await startTestSandbox({
      dataDir,
      timings: { analysisMs: 600_000, productIntervalMs: 600_000 },
    });
    const catalog = slow.info.catalogs[0]!.id;
    await slow.s3().send(
      new PutObjectCommand({
        Bucket: slow.info.bucket.bucket_name,
        Key: 'delivery/audio/p/a.wav',
        Body: 'a',
      }),
    );
    await slow.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      json: [{ outer_id: 'P-1', primary_media: 'p/a.wav' }],
    });
    await eventually(async () => {
      const [entry] = (await slow.api(`/sandbox/catalogs/${catalog}/entries`)).body.data;
      return entry.state === 'analyzing' ? true : undefined;
    });
    await slow.stop();
    const fast = await startTestSandbox({ dataDir });
    try {
      const done = await eventually(async () => {
        const [entry] = (await fast.api(`/sandbox/catalogs/${catalog}/entries`)).body.data;
        return entry.state === 'available' ? entry : undefined;
      });
      expect(done.tags.length).toBeGreaterThan(0);
    } finally {
      await fast.stop();
    }
  });
});

describe('sandbox fault injection', () => {
  it('answers 500 to every request at errorRate 1, in the envelope, leaving inspection alone', async () => {
    const sandbox = await startTestSandbox({ faults: { errorRate: 1 } });
    try {
      const answer = await fetch(`${sandbox.info.base_url}/oauth/access_tokens/client`, {
        method: 'POST',
        body: '{}',
      });
      expect(answer.status).toBe(500);
      const body = (await answer.json()) as any;
      expect(body).toMatchObject({ status: 500, error: { code: 'injected_fault' } });
      const token = await fetch(`${sandbox.info.base_url}/sandbox/requests`);
      expect(token.status).toBe(401); // inspection still answers normally
    } finally {
      await sandbox.close();
    }
  });

  it('fails only the drawn share of requests', async () => {
    let draw = 0;
    // Draws alternate 0.9, 0.1: with errorRate 0.5 every other request fails.
    const sandbox = await startTestSandbox({
      faults: { errorRate: 0.5 },
      random: () => (draw++ % 2 === 0 ? 0.9 : 0.1),
    });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await fetch(`${sandbox.info.base_url}/lexicology/tags`)).status);
      expect(statuses).toEqual([401, 500, 401, 500]);
    } finally {
      await sandbox.close();
    }
  });

  it('answers 429 with Retry-After at throttleRate 1', async () => {
    const sandbox = await startTestSandbox({ faults: { throttleRate: 1 } });
    try {
      const answer = await fetch(`${sandbox.info.base_url}/lexicology/tags`);
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toBe('1');
    } finally {
      await sandbox.close();
    }
  });

  it('answers slowly but correctly at slowRate 1', async () => {
    const sandbox = await startTestSandbox({ faults: { slowRate: 1, slowMs: 300 } });
    try {
      const started = Date.now();
      const token = await sandbox.token();
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      const answer = await fetch(`${sandbox.info.base_url}/lexicology/tags`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('issues short-lived tokens when asked', async () => {
    const sandbox = await startTestSandbox({ tokenLifetimeMs: 1000 });
    try {
      const answer = await sandbox.api('/oauth/access_tokens/client', {
        method: 'POST',
        auth: false,
        json: { client_id: sandbox.info.client_id, client_secret: sandbox.info.client_secret },
      });
      expect(answer.body.data.expires_at - answer.body.data.issued_at).toBe(1000);
    } finally {
      await sandbox.close();
    }
  });

  it('reads fault settings from the environment', () => {
    expect(
      faultsFromEnv({
        COURIER_SANDBOX_FAULT_500: '0.25',
        COURIER_SANDBOX_FAULT_429: '0.5',
        COURIER_SANDBOX_FAULT_SLOW: '1',
        COURIER_SANDBOX_SLOW_MS: '50',
      }),
    ).toEqual({ errorRate: 0.25, throttleRate: 0.5, slowRate: 1, slowMs: 50 });
    expect(faultsFromEnv({ COURIER_SANDBOX_FAULT_500: 'lots' }).errorRate).toBe(0);
  });
});

/** Runs `courier sandbox` as a user would and resolves with its first stdout line and the child. */
async function runCli(args: string[]) {
  const child = spawn(process.execPath, ['scripts/courier.mjs', 'sandbox', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, COURIER_HOME: join(dir, 'home') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', () => reject(new Error(`sandbox exited before printing: ${stderr}`)));
  });
  let rest = '';
  lines.on('line', (line) => (rest += line));
  return { child, first, exited, rest: () => rest, stderr: () => stderr };
}

describe('courier sandbox (CLI)', () => {
  it('prints exactly one JSON line, stops cleanly on SIGTERM and keeps its identity on restart', async () => {
    const data = join(dir, 'cli-data');
    const run = await runCli(['--port', '0', '--s3-port', '0', '--data', data]);
    const info = JSON.parse(run.first);
    expect(Object.keys(info)).toEqual([
      'base_url',
      'organization_id',
      'client_id',
      'client_secret',
      'catalogs',
      'bucket',
    ]);
    const tags = await fetch(`${info.base_url}/oauth/access_tokens/client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: info.client_id, client_secret: info.client_secret }),
    });
    expect(tags.status).toBe(201);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.rest()).toBe('');

    const again = await runCli(['--port', '0', '--data', data]);
    const info2 = JSON.parse(again.first);
    expect(info2.organization_id).toBe(info.organization_id);
    expect(info2.client_secret).toBe(info.client_secret);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });

  it('uses sandbox/ in the data directory by default and rejects bad flags with exit 2', async () => {
    const run = await runCli(['--port', '0']);
    expect(JSON.parse(run.first).catalogs).toHaveLength(3);
    expect(existsSync(join(dir, 'home', 'sandbox', 'identity.json'))).toBe(true);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const bad = spawn(process.execPath, ['scripts/courier.mjs', 'sandbox', '--port', 'abc'], {
      env: { ...process.env, COURIER_HOME: join(dir, 'home') },
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => bad.on('exit', resolve))).toBe(2);
  });
});
