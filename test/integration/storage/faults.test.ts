import { createHash } from 'node:crypto';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';

import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { deliveryKey } from '../../../src-main/core/storage/object-key.js';
import type { S3Target } from '../../../src-main/core/storage/s3-client.js';
import type { UploadEvent, UploadOptions } from '../../../src-main/core/storage/upload-context.js';
import {
  type JournalEntry,
  JournalWriter,
  readJournal,
} from '../../../src-main/core/storage/upload-journal.js';
import { planDirectoryUpload } from '../../../src-main/core/storage/upload-plan.js';
import { UploadQueue } from '../../../src-main/core/storage/upload-queue.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { adminClient, peerFactories, type S3Peer } from '../../support/s3-peers.js';
import { makeDataDir, makeTree, sha256File, sha256Object, TEST_PART } from './upload-helpers.js';

const OPTIONS: UploadOptions = {
  testPartSizeFloor: TEST_PART,
  concurrency: 4,
  retryBaseMs: 20,
  idleTimeoutMs: 1_500,
};

async function run(
  target: S3Target,
  dataDir: string,
  dir: string,
  folder: string,
  options = OPTIONS,
) {
  const queue = new UploadQueue({
    target,
    dataDir,
    items: await planDirectoryUpload(dir, folder),
    options,
  });
  const events: UploadEvent[] = [];
  queue.on((e) => events.push(e));
  return { queue, events, report: queue.start() };
}

for (const factory of peerFactories()) {
  describe.skipIf(Boolean(factory.skip))(`uploader faults against ${factory.name}`, () => {
    let peer: S3Peer;
    beforeAll(async () => {
      peer = await factory.start();
    });
    afterAll(async () => {
      await peer?.stop();
    });

    it('completes every file byte-identical through resets, stalls and 503 SlowDown', async () => {
      const proxy = await startFaultProxy({
        upstream: peer.target.endpoint!,
        seed: 7,
        rate: 0.3,
        max: { reset: 4, stall: 2, 'slow-down': 6, 'reset-after-upstream': 3 },
      });
      try {
        const sizes = {
          'one.wav': 6 * TEST_PART + 5,
          'two.wav': 4 * TEST_PART,
          'three.mp3': 30_000,
        };
        const { dir, paths } = await makeTree(sizes);
        const { events, report } = await run(
          { ...peer.target, endpoint: proxy.url },
          await makeDataDir(),
          dir,
          'Faults',
        );
        const result = await report;
        expect(
          result.files.map((f) => f.status),
          JSON.stringify(result.files),
        ).toEqual(['uploaded', 'uploaded', 'uploaded']);
        for (const rel of Object.keys(sizes)) {
          expect(await sha256Object(peer.target, deliveryKey('Faults', rel))).toBe(
            await sha256File(paths[rel as keyof typeof sizes]!),
          );
        }
        expect(proxy.counts['slow-down'] + proxy.counts.reset + proxy.counts.stall).toBeGreaterThan(
          0,
        );
        expect(events.some((e) => e.type === 'retry')).toBe(true);
        if (proxy.counts['slow-down'] > 0) {
          expect(events.some((e) => e.type === 'concurrency')).toBe(true);
        }
      } finally {
        await proxy.stop();
      }
    });

    it('finds the object in place when the answer to its CompleteMultipartUpload is lost', async () => {
      // The server completes the upload; the client never hears it and sends Complete again,
      // which finds the upload gone (NoSuchUpload, or a 500 on s3rver).
      const proxy = await startFaultProxy({
        upstream: peer.target.endpoint!,
        loseAnswerOf: /^POST .*uploadId=/,
      });
      try {
        const sizes = { 'long.wav': 5 * TEST_PART + 7 };
        const { dir, paths } = await makeTree(sizes);
        const { report } = await run(
          { ...peer.target, endpoint: proxy.url },
          await makeDataDir(),
          dir,
          'Lost complete',
        );
        const result = await report;
        expect(proxy.counts['reset-after-upstream']).toBe(1);
        expect(
          result.files.map((f) => f.status),
          JSON.stringify(result.files),
        ).toEqual(['uploaded']);
        expect(await sha256Object(peer.target, deliveryKey('Lost complete', 'long.wav'))).toBe(
          await sha256File(paths['long.wav']!),
        );
      } finally {
        await proxy.stop();
      }
    });

    it('fails a read-only key with AccessDenied and still uploads the others', async () => {
      const proxy = await startFaultProxy({ upstream: peer.target.endpoint!, deny: /locked/ });
      try {
        const { dir } = await makeTree({ 'locked.wav': 3 * TEST_PART, 'open.wav': 1000 });
        const { report } = await run(
          { ...peer.target, endpoint: proxy.url },
          await makeDataDir(),
          dir,
          'Denied',
        );
        const result = await report;
        expect(result.ok).toBe(false);
        expect(result.files).toMatchObject([
          { key: 'delivery/audio/Denied/locked.wav', status: 'failed', code: 'access-denied' },
          { key: 'delivery/audio/Denied/open.wav', status: 'uploaded' },
        ]);
      } finally {
        await proxy.stop();
      }
    });

    it('restarts a file whose local copy changed since its upload began', async () => {
      const { dir, paths } = await makeTree({ 'changing.wav': 6 * TEST_PART });
      const dataDir = await makeDataDir();
      const key = deliveryKey('Changed', 'changing.wav');
      // Interrupt after the first part is journaled.
      const first = await run(peer.target, dataDir, dir, 'Changed', { ...OPTIONS, concurrency: 1 });
      first.queue.on((e) => {
        if (e.type === 'part-done') first.queue.cancel();
      });
      expect((await first.report).canceled).toBe(true);
      // Cancel clears the journal; plant one as a crash would have left it.
      const { target } = peer;
      const created = await adminClient(target).send(
        new CreateMultipartUploadCommand({ Bucket: target.bucket, Key: key }),
      );
      const before = await stat(paths['changing.wav']!);
      await new JournalWriter(dataDir, {
        version: 1,
        bucket: target.bucket,
        key,
        localPath: paths['changing.wav']!,
        size: before.size,
        mtimeMs: Math.floor(before.mtimeMs),
        state: 'uploading',
        uploadId: created.UploadId!,
        partSize: TEST_PART,
        parts: [{ partNumber: 1, etag: 'stale', md5: 'stale', size: TEST_PART }],
        updatedAt: '',
      }).commit();

      await writeFile(paths['changing.wav']!, Buffer.alloc(5 * TEST_PART + 3, 9));
      await utimes(paths['changing.wav']!, new Date(), new Date(Date.now() + 5_000));
      const second = await run(peer.target, dataDir, dir, 'Changed');
      const result = await second.report;
      expect(result.ok).toBe(true);
      expect(second.events).toContainEqual({
        type: 'file-restarted',
        key,
        reason: 'local-file-changed',
      });
      expect(await sha256Object(peer.target, key)).toBe(await sha256File(paths['changing.wav']!));
      expect(await readJournal(dataDir, target.bucket, key)).toMatchObject({ state: 'complete' });
    });

    // s3rver can't abort (or expire) an upload, so only moto can play this scenario.
    it.skipIf(factory.name === 's3rver')(
      // The title carries the skip reason, so the runner prints it next to the skipped test.
      'restarts a file whose upload id expired on the server (NoSuchUpload) [moto only: s3rver cannot abort or expire an upload]',
      async () => {
        const { dir, paths } = await makeTree({ 'expiring.wav': 6 * TEST_PART });
        const dataDir = await makeDataDir();
        const key = deliveryKey('Expired', 'expiring.wav');
        const { target } = peer;
        // Pause after two parts, keep the journal as a crash would have left it, then cancel.
        const first = await run(target, dataDir, dir, 'Expired', { ...OPTIONS, concurrency: 1 });
        const paused = new Promise<void>((resolve) =>
          first.queue.on((e) => e.type === 'paused' && resolve()),
        );
        first.queue.on((e) => {
          if (e.type === 'part-done' && e.partNumber === 2) first.queue.pause();
        });
        await paused;
        await new Promise((r) => setTimeout(r, 300));
        const journal = await readJournal(dataDir, target.bucket, key);
        expect(journal).toMatchObject({ state: 'uploading' });
        const uploadId = journal!.uploadId;
        first.queue.cancel();
        await first.report;
        // The server forgot the upload (lifecycle expiry); the journal still names it.
        await adminClient(target)
          .send(
            new AbortMultipartUploadCommand({
              Bucket: target.bucket,
              Key: key,
              UploadId: uploadId,
            }),
          )
          .catch(() => undefined);
        await new JournalWriter(dataDir, journal!).commit();

        const second = await run(target, dataDir, dir, 'Expired');
        const result = await second.report;
        expect(result.ok).toBe(true);
        expect(second.events).toContainEqual({
          type: 'file-restarted',
          key,
          reason: 'upload-expired',
        });
        expect(await sha256Object(target, key)).toBe(await sha256File(paths['expiring.wav']!));
        const open = await adminClient(target).send(
          new ListMultipartUploadsCommand({
            Bucket: target.bucket,
            Prefix: 'delivery/audio/Expired/',
          }),
        );
        expect(open.Uploads ?? []).toEqual([]);
      },
    );

    it('finishes without re-sending when a crash came between Complete and the journal', async () => {
      const size = 5 * TEST_PART + 9;
      const { dir, paths } = await makeTree({ 'done.wav': size });
      const dataDir = await makeDataDir();
      const key = deliveryKey('Completed', 'done.wav');
      const { target } = peer;
      expect((await (await run(target, dataDir, dir, 'Completed')).report).ok).toBe(true);
      // Put back the journal as it stood just before Complete: every part, state 'uploading'.
      const bytes = await readFile(paths['done.wav']!);
      const parts: JournalEntry['parts'] = [];
      for (let start = 0, n = 1; start < size; start += TEST_PART, n++) {
        const part = bytes.subarray(start, Math.min(size, start + TEST_PART));
        const md5 = createHash('md5').update(part).digest();
        parts.push({
          partNumber: n,
          etag: md5.toString('hex'),
          md5: md5.toString('base64'),
          size: part.length,
        });
      }
      const journal = await readJournal(dataDir, target.bucket, key);
      await new JournalWriter(dataDir, {
        ...journal!,
        state: 'uploading',
        uploadId: 'completed-before-the-crash',
        partSize: TEST_PART,
        parts,
        etag: undefined,
      }).commit();
      const second = await run(target, dataDir, dir, 'Completed');
      const result = await second.report;
      expect(result.files).toMatchObject([{ key, status: 'uploaded' }]);
      expect(result.bytesSent).toBe(0);
    });

    it('stop keeps the upload and its journal, and the next run resumes it', async () => {
      const { dir, paths } = await makeTree({ 'long.wav': 8 * TEST_PART });
      const dataDir = await makeDataDir();
      const key = deliveryKey('Stop', 'long.wav');
      const first = await run(peer.target, dataDir, dir, 'Stop', { ...OPTIONS, concurrency: 1 });
      first.queue.on((e) => {
        if (e.type === 'part-done' && e.partNumber === 3) first.queue.stop();
      });
      const stopped = await first.report;
      expect(stopped.files).toMatchObject([{ key, status: 'canceled', code: 'stopped' }]);
      const journal = await readJournal(dataDir, peer.target.bucket, key);
      expect(journal?.state).toBe('uploading');
      const kept = journal!.parts.reduce((sum, p) => sum + p.size, 0);
      expect(kept).toBeGreaterThanOrEqual(3 * TEST_PART);
      const second = await (await run(peer.target, dataDir, dir, 'Stop')).report;
      expect(second.ok).toBe(true);
      expect(second.bytesSent).toBeLessThanOrEqual(8 * TEST_PART - kept);
      expect(await sha256Object(peer.target, key)).toBe(await sha256File(paths['long.wav']!));
    });

    it('cancel aborts the multipart uploads it started and clears their journals', async () => {
      const { dir } = await makeTree({ 'big.wav': 8 * TEST_PART });
      const dataDir = await makeDataDir();
      const key = deliveryKey('Cancel', 'big.wav');
      const first = await run(peer.target, dataDir, dir, 'Cancel', { ...OPTIONS, concurrency: 1 });
      first.queue.on((e) => {
        if (e.type === 'part-done' && e.partNumber === 2) first.queue.cancel();
      });
      const result = await first.report;
      expect(result.canceled).toBe(true);
      expect(result.files).toMatchObject([{ key, status: 'canceled' }]);
      expect(await readJournal(dataDir, peer.target.bucket, key)).toBeUndefined();
      expect(await peer.listKeys()).not.toContain(key);
      if (peer.supportsListParts) {
        const open = await adminClient(peer.target).send(
          new ListMultipartUploadsCommand({
            Bucket: peer.target.bucket,
            Prefix: 'delivery/audio/Cancel/',
          }),
        );
        expect(open.Uploads ?? []).toEqual([]);
      }
    });
  });
}
