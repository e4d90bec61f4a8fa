import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { listBucket } from '../../../src-main/core/bucket/bucket-browser.js';
import { createS3Client, type S3Target } from '../../../src-main/core/storage/s3-client.js';
import { motoUnavailable, startMoto } from '../../support/s3-peers.js';
import { bucketTarget, startTestSandbox } from '../../support/sandbox.js';

/** Keys as a label names its files: a nested folder, `&`, `'`, quotes, spaces, non-ASCII. */
const KEYS = [
  'delivery/audio/Album/Disc 1/01 Tom & Jerry.mp3',
  "delivery/audio/Album/Disc 1/02 Don't Stop.mp3",
  'delivery/audio/Album/Disc 2/01 "Quoted" <1>.mp3',
  'delivery/audio/Album/03 Ünïcødé — naïve.mp3',
  'delivery/audio/Café Tacvba/Señorita & Co/04 Ça va.mp3',
  'delivery/audio/Single 100%+1.mp3',
];

/** The delivery bucket of a peer: the sandbox (s3rver behind its gate) or moto_server. */
interface Peer {
  name: string;
  target: S3Target;
  stop(): Promise<void>;
}

const motoReason = motoUnavailable();
if (motoReason && process.env.CI === 'true') throw new Error(`CI needs moto_server: ${motoReason}`);

const peers: Array<{ name: string; skip?: string; start(): Promise<Peer> }> = [
  {
    name: 'the sandbox',
    async start() {
      const sandbox = await startTestSandbox();
      const { bucket } = sandbox.info;
      return {
        name: 'sandbox',
        target: bucketTarget(bucket),
        stop: () => sandbox.close(),
      };
    },
  },
  { name: 'moto_server', skip: motoReason, start: startMoto },
];

for (const factory of peers) {
  describe.skipIf(Boolean(factory.skip))(`bucket listing against ${factory.name}`, () => {
    let peer: Peer;
    let s3: S3Client;
    beforeAll(async () => {
      peer = await factory.start();
      s3 = createS3Client(peer.target);
      for (const key of ['delivery/audio/', ...KEYS]) {
        const marker = key.endsWith('/');
        // The sandbox creates its folder markers itself; moto needs this one put.
        if (marker && factory.name === 'the sandbox') continue;
        await s3.send(
          new PutObjectCommand({ Bucket: peer.target.bucket, Key: key, Body: marker ? '' : key }),
        );
      }
    }, 60_000);
    afterAll(async () => {
      s3?.destroy();
      await peer?.stop();
    });

    it('shows a folder whose objects sit two levels down, and each level below it', async () => {
      const root = await listBucket(s3, peer.target.bucket, 'delivery/audio/');
      expect(root.folders.map((f) => f.prefix)).toEqual([
        'delivery/audio/Album/',
        'delivery/audio/Café Tacvba/',
      ]);
      expect(root.objects.map((o) => o.key)).toEqual(['delivery/audio/Single 100%+1.mp3']);

      const album = await listBucket(s3, peer.target.bucket, 'delivery/audio/Album/');
      expect(album.folders.map((f) => f.prefix)).toEqual([
        'delivery/audio/Album/Disc 1/',
        'delivery/audio/Album/Disc 2/',
      ]);
      expect(album.objects.map((o) => o.key)).toEqual([
        'delivery/audio/Album/03 Ünïcødé — naïve.mp3',
      ]);

      const band = await listBucket(s3, peer.target.bucket, 'delivery/audio/Café Tacvba/');
      expect(band.folders.map((f) => f.prefix)).toEqual([
        'delivery/audio/Café Tacvba/Señorita & Co/',
      ]);
      expect(band.objects).toEqual([]);
    });

    it("gives back keys with '&', quotes, spaces and non-ASCII exactly as stored", async () => {
      const disc = await listBucket(s3, peer.target.bucket, 'delivery/audio/Album/Disc 1/');
      expect(disc.objects.map((o) => [o.key, o.size])).toEqual([
        [KEYS[0], Buffer.byteLength(KEYS[0]!)],
        [KEYS[1], Buffer.byteLength(KEYS[1]!)],
      ]);
      const band = await listBucket(
        s3,
        peer.target.bucket,
        'delivery/audio/Café Tacvba/Señorita & Co/',
      );
      expect(band.objects.map((o) => o.key)).toEqual([KEYS[4]]);
    });

    it('lists every key without a delimiter, one key per page, in order', async () => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({
            Bucket: peer.target.bucket,
            Prefix: 'delivery/audio/',
            MaxKeys: 1,
            ContinuationToken: token,
          }),
        );
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.NextContinuationToken;
      } while (token);
      expect(keys).toEqual(['delivery/audio/', ...[...KEYS].sort()]);
    });

    it('pages a delimited listing without repeating or losing a folder', async () => {
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({
            Bucket: peer.target.bucket,
            Prefix: 'delivery/audio/',
            Delimiter: '/',
            MaxKeys: 1,
            ContinuationToken: token,
          }),
        );
        seen.push(
          ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!),
          ...(page.Contents ?? []).map((o) => o.Key!),
        );
        token = page.NextContinuationToken;
      } while (token);
      expect(seen.sort()).toEqual([
        'delivery/audio/',
        'delivery/audio/Album/',
        'delivery/audio/Café Tacvba/',
        'delivery/audio/Single 100%+1.mp3',
      ]);
    });
  });
}
