/**
 * Many small files: one listing per folder instead of a HeadObject per file before, and the
 * PUT's own answer (the CRC32 the bucket checked, echoed, or its ETag, the MD5 of what it
 * received) instead of a HeadObject after. The
 * requests each run sends are counted by a proxy in front of each real S3 server.
 */
import { rm, writeFile } from 'node:fs/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { S3Target } from '../../../src-main/core/storage/s3-client.js';
import { journalDir } from '../../../src-main/core/storage/upload-journal.js';
import { planDirectoryUpload } from '../../../src-main/core/storage/upload-plan.js';
import { UploadQueue } from '../../../src-main/core/storage/upload-queue.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { peerFactories } from '../../support/s3-peers.js';
import { bucketTarget, startTestSandbox } from '../../support/sandbox.js';
import { makeDataDir, makeTree, sha256File, sha256Object } from './upload-helpers.js';

const FILES = 40;

/** The requests of one run, by kind. */
function kinds(seen: { method: string; url: string }[]) {
  const count = (test: (r: { method: string; url: string }) => boolean) => seen.filter(test).length;
  return {
    list: count((r) => r.method === 'GET' && r.url.includes('list-type=2')),
    head: count((r) => r.method === 'HEAD'),
    put: count((r) => r.method === 'PUT'),
    other: count(
      (r) =>
        !['HEAD', 'PUT'].includes(r.method) &&
        !(r.method === 'GET' && r.url.includes('list-type=2')),
    ),
  };
}

/** The servers: moto, and the sandbox's bucket (s3rver behind the sandbox's gate). */
const servers: { name: string; skip?: string; start: () => Promise<Peer> }[] = [
  ...peerFactories()
    .filter((f) => f.name === 'moto')
    .map((f) => ({ name: f.name, skip: f.skip, start: () => f.start() })),
  {
    name: "the sandbox's bucket",
    start: async () => {
      const sandbox = await startTestSandbox();
      const { bucket } = sandbox.info;
      return {
        target: bucketTarget(bucket),
        stop: () => sandbox.close(),
      };
    },
  },
];

interface Peer {
  target: S3Target;
  stop(): Promise<void>;
}

for (const server of servers) {
  describe.skipIf(Boolean(server.skip))(`many small files against ${server.name}`, () => {
    let peer: Peer;
    let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
    beforeAll(async () => {
      peer = await server.start();
      proxy = await startFaultProxy({ upstream: peer.target.endpoint! });
    });
    afterAll(async () => {
      await proxy?.stop();
      await peer?.stop();
    });

    it('sends one PUT per file and one listing per folder; a re-run sends nothing but the listing', async () => {
      const layout: Record<string, number> = { 'Bonus/lone.wav': 3_000 };
      for (let i = 1; i <= FILES; i++) layout[`${String(i).padStart(2, '0')}.wav`] = 1_000 + i;
      const { dir, paths } = await makeTree(layout);
      const dataDir = await makeDataDir();
      const items = await planDirectoryUpload(dir, 'Small files');
      const target = { ...peer.target, endpoint: proxy.url };
      const run = async (home = dataDir) => {
        const from = proxy.seen.length;
        const report = await new UploadQueue({ target, dataDir: home, items }).start();
        return { report, requests: kinds(proxy.seen.slice(from)) };
      };

      const first = await run();
      expect(first.report.ok).toBe(true);
      // The lone file's folder is too small to list: it is asked about with one HeadObject.
      expect(first.requests).toEqual({ list: 1, head: 1, put: FILES + 1, other: 0 });
      for (const rel of ['01.wav', '40.wav', 'Bonus/lone.wav']) {
        expect(await sha256Object(peer.target, `delivery/audio/Small files/${rel}`)).toBe(
          await sha256File(paths[rel]!),
        );
      }

      const again = await run();
      expect(again.report.files.every((f) => f.status === 'skipped')).toBe(true);
      expect(again.requests).toEqual({ list: 1, head: 1, put: 0, other: 0 });

      // Another workstation (no journal) knows the files by their MD5 against the listing's ETag.
      const elsewhere = await makeDataDir();
      const fresh = await run(elsewhere);
      expect(fresh.report.files.every((f) => f.status === 'skipped')).toBe(true);
      expect(fresh.requests).toEqual({ list: 1, head: 1, put: 0, other: 0 });

      // A file changed on disk (same size, other bytes) is sent again; the others are not.
      await writeFile(paths['07.wav']!, Buffer.alloc(1_007, 9));
      const changed = await run(elsewhere);
      expect(changed.report.files.filter((f) => f.status === 'uploaded').map((f) => f.key)).toEqual(
        ['delivery/audio/Small files/07.wav'],
      );
      expect(changed.requests).toMatchObject({ list: 1, put: 1 });
      expect(await sha256Object(peer.target, 'delivery/audio/Small files/07.wav')).toBe(
        await sha256File(paths['07.wav']!),
      );
      await rm(journalDir(dataDir), { recursive: true, force: true });
    });

    it('takes the CRC32 a PUT answers as its confirmation; confirms with HeadObject where neither it nor the MD5 comes back', async () => {
      const { dir } = await makeTree({ 'a.wav': 2_000, 'b.wav': 2_001 });
      const send = async (folder: string, faults: { dropPutChecksums?: boolean }) => {
        const odd = await startFaultProxy({
          upstream: peer.target.endpoint!,
          putEtag: () => '"not-an-md5-0"',
          ...faults,
        });
        try {
          const items = await planDirectoryUpload(dir, folder);
          const report = await new UploadQueue({
            target: { ...peer.target, endpoint: odd.url },
            dataDir: await makeDataDir(),
            items,
          }).start();
          expect(report.ok).toBe(true);
          return kinds(odd.seen);
        } finally {
          await odd.stop();
        }
      };
      // Two files under the listing threshold: a HeadObject before each PUT; the bucket's echo of
      // the CRC32 it checked confirms the bytes, whatever the ETag.
      expect(await send('Odd etags', {})).toEqual({ list: 0, head: 2, put: 2, other: 0 });
      // A store that echoes no checksum and answers an ETag that isn't the MD5: one more each.
      expect(await send('No checksums', { dropPutChecksums: true })).toEqual({
        list: 0,
        head: 4,
        put: 2,
        other: 0,
      });
    });
  });
}
