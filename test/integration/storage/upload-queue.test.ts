import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { deliveryKey } from '../../../src-main/core/storage/object-key.js';
import type { UploadEvent } from '../../../src-main/core/storage/upload-context.js';
import { planDirectoryUpload } from '../../../src-main/core/storage/upload-plan.js';
import { UploadQueue } from '../../../src-main/core/storage/upload-queue.js';
import { peerFactories, type S3Peer } from '../../support/s3-peers.js';
import { makeDataDir, makeTree, sha256File, sha256Object, TEST_PART } from './upload-helpers.js';

for (const factory of peerFactories()) {
  describe.skipIf(Boolean(factory.skip))(`uploader against ${factory.name}`, () => {
    let peer: S3Peer;
    beforeAll(async () => {
      peer = await factory.start();
    });
    afterAll(async () => {
      await peer?.stop();
    });

    it('uploads a tree byte-identical under delivery/audio/<folder>/ and nowhere else', async () => {
      const { dir, paths } = await makeTree({
        'small.wav': 10_000,
        'Disc 1/Café – long.flac': 3 * TEST_PART + 123,
        'Disc 1/empty.mp3': 0,
        'notes.txt': 500,
      });
      const dataDir = await makeDataDir();
      const items = await planDirectoryUpload(dir, 'Label Q1');
      expect(items.map((i) => i.key).sort()).toEqual([
        'delivery/audio/Label Q1/Disc 1/Café – long.flac',
        'delivery/audio/Label Q1/Disc 1/empty.mp3',
        'delivery/audio/Label Q1/small.wav',
      ]);
      const events: UploadEvent[] = [];
      const queue = new UploadQueue({
        target: peer.target,
        dataDir,
        items,
        options: { testPartSizeFloor: TEST_PART, concurrency: 4 },
      });
      queue.on((e) => events.push(e));
      const report = await queue.start();
      expect(report.files.map((f) => f.status)).toEqual(['uploaded', 'uploaded', 'uploaded']);
      expect(report.ok).toBe(true);
      for (const rel of ['small.wav', 'Disc 1/Café – long.flac', 'Disc 1/empty.mp3']) {
        expect(await sha256Object(peer.target, deliveryKey('Label Q1', rel))).toBe(
          await sha256File(paths[rel]!),
        );
      }
      expect((await peer.listKeys()).every((k) => k.startsWith('delivery/audio/Label Q1/'))).toBe(
        true,
      );
      const last = events.filter((e) => e.type === 'progress').at(-1);
      expect(last).toMatchObject({
        confirmedBytes: report.files.reduce((s, f) => s + ('size' in f ? f.size : 0), 0),
      });
      const confirmed = events.flatMap((e) => (e.type === 'progress' ? [e.confirmedBytes] : []));
      expect(confirmed).toEqual([...confirmed].sort((a, b) => a - b));

      // Re-running the finished upload sends nothing.
      const again = new UploadQueue({
        target: peer.target,
        dataDir,
        items,
        options: { testPartSizeFloor: TEST_PART },
      });
      const second = await again.start();
      expect(second.files.map((f) => f.status)).toEqual(['skipped', 'skipped', 'skipped']);
      expect(second.bytesSent).toBe(0);

      // A fresh data directory (no journals) still recognises the objects by size and checksum.
      const third = await new UploadQueue({
        target: peer.target,
        dataDir: await makeDataDir(),
        items,
        options: { testPartSizeFloor: TEST_PART },
      }).start();
      expect(third.files.map((f) => f.status)).toEqual(['skipped', 'skipped', 'skipped']);
      expect(third.bytesSent).toBe(0);
    });

    it('sends files in one PUT once the link is known to be fast, and they arrive intact', async () => {
      // Files of 4 parts and a bit; the first starts before any throughput is measured.
      const names = Array.from({ length: 16 }, (_, i) => `track-${String(i).padStart(2, '0')}.wav`);
      const { dir, paths } = await makeTree(
        Object.fromEntries(names.map((n) => [n, 4 * TEST_PART + 1000])),
      );
      const items = await planDirectoryUpload(dir, 'Adaptive');
      const options = { testPartSizeFloor: TEST_PART, singlePutMaxBytes: 8 * TEST_PART };
      const queue = new UploadQueue({
        target: peer.target,
        dataDir: await makeDataDir(),
        items,
        options: { ...options, concurrency: 1 },
      });
      const starts: boolean[] = [];
      queue.on((e) => e.type === 'file-start' && starts.push(e.multipart));
      const report = await queue.start();
      expect(report.ok).toBe(true);
      // Unknown link: resumable parts. Once loopback's speed is measured: one PUT per file.
      expect(starts[0]).toBe(true);
      expect(starts.at(-1)).toBe(false);
      for (const name of names) {
        expect(await sha256Object(peer.target, deliveryKey('Adaptive', name))).toBe(
          await sha256File(paths[name]!),
        );
      }
      // Objects sent either way are recognised as already there.
      const again = await new UploadQueue({
        target: peer.target,
        dataDir: await makeDataDir(),
        items,
        options,
      }).start();
      expect(again.files.every((f) => f.status === 'skipped')).toBe(true);
      expect(again.bytesSent).toBe(0);
    });
  });
}
