import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { UploadEvent } from '../../../src-main/core/storage/upload-context.js';
import { planDirectoryUpload } from '../../../src-main/core/storage/upload-plan.js';
import { UploadQueue } from '../../../src-main/core/storage/upload-queue.js';
import { type ByteCounter, startByteCounter } from '../../support/byte-counter.js';
import { peerFactories, type S3Peer } from '../../support/s3-peers.js';
import { makeDataDir, makeTree, sha256File, sha256Object } from './upload-helpers.js';

const MiB = 1024 * 1024;

for (const factory of peerFactories()) {
  describe.skipIf(Boolean(factory.skip))(`pause against ${factory.name}`, () => {
    let peer: S3Peer;
    let counter: ByteCounter;
    beforeAll(async () => {
      peer = await factory.start();
      counter = await startByteCounter(peer.target.endpoint!);
    });
    afterAll(async () => {
      await counter?.stop();
      await peer?.stop();
    });

    it('stops the bytes reaching the server within 1 s, then resumes to every file confirmed', async () => {
      // 1 MiB parts, four in flight sharing a 1 MiB/s limit: each part takes about 4 s on the
      // wire, so at any moment most parts in flight are far from done.
      const { dir, paths } = await makeTree({ 'a.wav': 3 * MiB, 'b.wav': 3 * MiB });
      const items = await planDirectoryUpload(dir, 'Paused');
      const queue = new UploadQueue({
        target: { ...peer.target, endpoint: counter.url },
        dataDir: await makeDataDir(),
        items,
        options: { testPartSizeFloor: MiB, concurrency: 4, bytesPerSecond: MiB },
      });
      const events: Array<UploadEvent & { at: number }> = [];
      queue.on((event) => events.push({ ...event, at: performance.now() }));
      const report = queue.start();

      // Pause once the server has had 1.5 MiB: parts are mid-flight.
      const started = performance.now();
      while (counter.bytesSince(started) < 1.5 * MiB) await new Promise((r) => setTimeout(r, 20));
      const pausedAt = performance.now();
      queue.pause();
      await new Promise((r) => setTimeout(r, 3_000));

      const pausing = events.find((e) => e.type === 'pausing');
      const paused = events.find((e) => e.type === 'paused');
      expect(pausing).toMatchObject({ type: 'pausing' });
      expect((pausing as { finishing: number }).finishing).toBeGreaterThan(0);
      expect(paused!.at - pausedAt).toBeLessThan(1_000);
      // What the server received: nothing from 1 s after the pause to 3 s after it.
      const afterPause = counter.bytesSince(pausedAt);
      const lastByte = Math.max(...counter.arrivals.map((a) => a.at));
      console.log(
        `${factory.name}: ${pausing && 'finishing' in pausing ? pausing.finishing : 0} request(s) finishing at pause; paused after ${Math.round(paused!.at - pausedAt)} ms; last byte ${Math.round(lastByte - pausedAt)} ms after pause; ${afterPause} bytes after pause`,
      );
      expect(counter.bytesSince(pausedAt + 1_000)).toBe(0);
      expect(lastByte - pausedAt).toBeLessThan(1_000);

      queue.resume();
      const result = await report;
      expect(result.ok).toBe(true);
      expect(events.some((e) => e.type === 'resumed')).toBe(true);
      // Each file ends confirmed (the uploader's HeadObject) and byte-identical.
      const done = events.filter((e) => e.type === 'file-done').map((e) => 'key' in e && e.key);
      expect(done.sort()).toEqual(items.map((i) => i.key).sort());
      for (const item of items) {
        expect(await sha256Object(peer.target, item.key)).toBe(await sha256File(item.localPath));
      }
      expect(Object.keys(paths)).toHaveLength(2);
    });
  });
}
