/**
 * Issue #14 at the level a user sees it: `courier` against a bucket that refuses connections,
 * one that accepts and never answers, a path that stops forwarding mid-upload, and names the
 * bucket can never store. Every failure ends in bounded time with one clear line.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ProfileStore } from '../../../src-main/core/profiles/profile-store.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { runCli } from '../../support/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { makeTaggedTracks } from '../delivery/delivery-helpers.js';

const MiB = 1024 * 1024;

/** A port nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A listener that accepts connections and never answers (a blackholed address). */
async function blackhole(): Promise<{ port: number; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The lines of stderr that are not progress output. */
const linesOf = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');

describe('courier against a bucket that does not answer', () => {
  let sandbox: TestSandbox;
  let home: string;
  let audio: string;

  /**
   * Adds a profile whose bucket endpoint is `endpoint` (and service `baseUrl`, by default the
   * sandbox's); returns the child's environment.
   */
  async function profile(
    name: string,
    endpoint: string,
    baseUrl = sandbox.info.base_url,
  ): Promise<NodeJS.ProcessEnv> {
    const { info } = sandbox;
    await new ProfileStore(home, new MemorySecretStore(), {}).save({
      name,
      environment: 'development',
      base_url: baseUrl,
      client_id: info.client_id,
      bucket: {
        bucket_name: info.bucket.bucket_name,
        bucket_region: info.bucket.bucket_region,
        access_key_id: info.bucket.access_key_id,
        endpoint,
      },
      catalogs: info.catalogs.map(({ id, name: label }) => ({ id, name: label })),
    });
    return {
      COURIER_HOME: home,
      COURIER_CLIENT_SECRET: info.client_secret,
      COURIER_SECRET_ACCESS_KEY: info.bucket.secret_access_key,
    };
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    home = await mkdtemp(join(tmpdir(), 'courier-net-'));
    audio = join(home, '..', `net-audio-${Date.now()}`);
    await mkdir(audio, { recursive: true });
    for (let i = 1; i <= 12; i++) {
      await writeFile(join(audio, `${String(i).padStart(2, '0')}.wav`), Buffer.alloc(4000, i));
    }
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(home, { recursive: true, force: true });
    await rm(audio, { recursive: true, force: true });
  });

  it('reports a closed port within 30 s, once, naming the host and what to check', async () => {
    const port = await closedPort();
    const env = await profile('Closed', `http://127.0.0.1:${port}`);
    const started = Date.now();
    const run = await runCli(['upload', audio, '--to', 'Closed', '--profile', 'Closed'], {
      env,
      timeoutMs: 45_000,
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.code).toBe(1);
    const naming = linesOf(run.stderr).filter((line) => line.includes(`127.0.0.1:${port}`));
    expect(naming).toHaveLength(1);
    expect(naming[0]).toMatch(/connection refused.*endpoint/);
    expect(run.stderr).not.toMatch(/\n\s+at |smithy|non-retryable/);
  });

  it('reports a listener that never answers within 30 s, with the production defaults', async () => {
    const hole = await blackhole();
    try {
      const env = await profile('Blackhole', `http://127.0.0.1:${hole.port}`);
      const started = Date.now();
      const run = await runCli(['upload', audio, '--to', 'Hole', '--profile', 'Blackhole'], {
        env,
        timeoutMs: 45_000,
      });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(run.code).toBe(1);
      const naming = linesOf(run.stderr).filter((line) => line.includes(`127.0.0.1:${hole.port}`));
      expect(naming).toHaveLength(1);
      expect(naming[0]).toMatch(/Can't reach the delivery bucket.*no answer.*endpoint/);
    } finally {
      await hole.stop();
    }
  });

  it.skipIf(missingFixtureTools().length > 0)(
    'ends courier deliver against a listener that never answers in one line',
    async () => {
      const hole = await blackhole();
      const dir = join(home, '..', `net-deliver-${Date.now()}`);
      try {
        await makeTaggedTracks(dir, 3);
        const env = {
          ...(await profile('HoleDeliver', `http://127.0.0.1:${hole.port}`)),
          COURIER_NETWORK_TIMEOUTS: 'idle=2000,unreachable=2000',
        };
        const catalog = sandbox.info.catalogs[0]!.id;
        const run = await runCli(
          ['deliver', dir, '--profile', 'HoleDeliver', '--catalog', catalog, '--mode', 'json'],
          { env, timeoutMs: 45_000 },
        );
        expect(run.code).not.toBe(0);
        const naming = linesOf(run.stderr).filter((l) => l.includes(`127.0.0.1:${hole.port}`));
        expect(naming).toHaveLength(1);
        expect(naming[0]).toMatch(/delivery bucket.*no answer within 2 s.*endpoint/);
        expect(run.stderr).not.toMatch(/\n\s+at |smithy/);
      } finally {
        await hole.stop();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(missingFixtureTools().length > 0)(
    'reports a service that never answers within 30 s, with the production defaults',
    async () => {
      const hole = await blackhole();
      const dir = join(home, '..', `net-api-${Date.now()}`);
      try {
        await makeTaggedTracks(dir, 2);
        const env = await profile(
          'ApiHole',
          sandbox.info.bucket.endpoint,
          `http://127.0.0.1:${hole.port}`,
        );
        const catalog = sandbox.info.catalogs[0]!.id;
        const started = Date.now();
        const run = await runCli(
          ['deliver', dir, '--profile', 'ApiHole', '--catalog', catalog, '--mode', 'json'],
          { env, timeoutMs: 50_000 },
        );
        // The upload itself takes a moment; the service's silence is what must stay bounded.
        expect(Date.now() - started).toBeLessThan(40_000);
        expect(run.code).not.toBe(0);
        const naming = linesOf(run.stderr).filter((l) => l.includes(`127.0.0.1:${hole.port}`));
        expect(naming.length).toBeGreaterThan(0);
        expect(naming[0]).toMatch(/Can't reach the service at .*no answer within 15 s.*base URL/);
      } finally {
        await hole.stop();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('drops a connection that stops forwarding mid-upload and completes byte-identical', async () => {
    const proxy = await startFaultProxy({
      upstream: sandbox.info.bucket.endpoint,
      rate: 1,
      max: { 'stall-midway': 1 },
    });
    const dir = join(home, '..', `net-stall-${Date.now()}`);
    try {
      await mkdir(dir, { recursive: true });
      const file = join(dir, 'long.wav');
      const bytes = Buffer.alloc(20 * MiB);
      for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE(i, i);
      await writeFile(file, bytes);
      const env = {
        ...(await profile('Stalling', proxy.url)),
        COURIER_NETWORK_TIMEOUTS: 'idle=2000,connect=2000',
      };
      const run = await runCli(['upload', dir, '--to', 'Stall', '--profile', 'Stalling'], {
        env,
        timeoutMs: 50_000,
      });
      expect(run.stderr).toContain('1 uploaded');
      expect(run.code).toBe(0);
      expect(proxy.counts['stall-midway']).toBe(1);
      const object = await sandbox.s3().send(
        new GetObjectCommand({
          Bucket: sandbox.info.bucket.bucket_name,
          Key: 'delivery/audio/Stall/long.wav',
        }),
      );
      expect(await sha256(object.Body as Readable)).toBe(await sha256(createReadStream(file)));
    } finally {
      await proxy.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives a file a bounded retry time in all, whatever each request may still retry', async () => {
    const proxy = await startFaultProxy({
      upstream: sandbox.info.bucket.endpoint,
      rate: 1,
      max: { 'slow-down': 1000 },
    });
    const dir = join(home, '..', `net-budget-${Date.now()}`);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'busy.wav'), Buffer.alloc(64 * 1024, 1));
      const env = {
        ...(await profile('Busy', proxy.url)),
        // Each request could retry for 10 minutes (8 attempts); the file may for 1.5 s in all.
        COURIER_NETWORK_TIMEOUTS: 'retry=600000,file-retry=1500',
      };
      const run = await runCli(['upload', dir, '--to', 'Busy', '--profile', 'Busy'], {
        env,
        timeoutMs: 50_000,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/busy\.wav failed: its requests kept failing for 2 s in all/);
      expect(proxy.counts['slow-down']).toBeGreaterThan(1);
      expect(proxy.counts['slow-down']).toBeLessThan(8);
    } finally {
      await proxy.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails a name the bucket refuses at once, in one line without SDK noise', async () => {
    const dir = join(home, '..', `net-long-${Date.now()}`);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${'n'.repeat(246)}.wav`), Buffer.alloc(3000, 1));
      await writeFile(join(dir, 'short.wav'), Buffer.alloc(3000, 2));
      const env = await profile('Names', sandbox.info.bucket.endpoint);
      const run = await runCli(['upload', dir, '--to', 'Names', '--profile', 'Names'], { env });
      // Refused before anything is sent: names over 200 bytes are a usage error (exit 2).
      expect(run.code).toBe(2);
      expect(linesOf(run.stderr)).toHaveLength(1);
      expect(run.stderr).toMatch(/longer than 200 bytes; shorten it/);
      expect(run.stderr).not.toMatch(/InternalError|non-retryable|kept failing|\n\s+at /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a key over 1,024 bytes before sending anything, in one line', async () => {
    const dir = join(home, '..', `net-deep-${Date.now()}`);
    try {
      const deep = join(dir, ...Array.from({ length: 6 }, (_, i) => `${i}${'d'.repeat(185)}`));
      await mkdir(deep, { recursive: true });
      await writeFile(join(deep, 'x.wav'), Buffer.alloc(3000, 3));
      const env = await profile('Deep', sandbox.info.bucket.endpoint);
      const run = await runCli(['upload', dir, '--to', 'Deep', '--profile', 'Deep'], { env });
      expect(run.code).toBe(2);
      expect(linesOf(run.stderr)).toHaveLength(1);
      expect(run.stderr).toMatch(/longer than S3's 1,024 bytes; shorten the path/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
