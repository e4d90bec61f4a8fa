import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { deliveryKey } from '../../../src-main/core/storage/object-key.js';
import type { S3Target } from '../../../src-main/core/storage/s3-client.js';
import { peerFactories, type S3Peer } from '../../support/s3-peers.js';
import { makeDataDir, makeTree, sha256File, sha256Object, TEST_PART } from './upload-helpers.js';

const CHILD = fileURLToPath(new URL('../../support/upload-child.ts', import.meta.url));
const CONCURRENCY = 3;

interface Line {
  type: string;
  key?: string;
  partNumber?: number;
  bytes?: number;
  bytesSent?: number;
  ok?: boolean;
}

/** Runs the child uploader; `onLine` may return true to have it killed with SIGKILL. */
function runChild(
  target: S3Target,
  dataDir: string,
  dir: string,
  onLine: (line: Line) => boolean = () => false,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: Line[] }> {
  // node --import tsx (rather than npx tsx) so that the process we SIGKILL is the uploader itself.
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dir, 'Crash Test'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        COURIER_HOME: dataDir,
        S3_ENDPOINT: target.endpoint,
        S3_REGION: target.region,
        S3_BUCKET: target.bucket,
        S3_ACCESS_KEY_ID: target.accessKeyId,
        S3_SECRET_ACCESS_KEY: target.secretAccessKey,
        // A slow link keeps the transfer in mid-flight long enough to kill it there.
        UPLOAD_OPTIONS: JSON.stringify({
          testPartSizeFloor: TEST_PART,
          concurrency: CONCURRENCY,
          bytesPerSecond: 2 * 1024 * 1024,
        }),
      },
    },
  );
  const lines: Line[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Line;
    lines.push(line);
    if (onLine(line)) child.kill('SIGKILL');
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, lines })),
  );
}

for (const factory of peerFactories()) {
  describe.skipIf(Boolean(factory.skip))(`kill -9 mid-transfer against ${factory.name}`, () => {
    let peer: S3Peer;
    beforeAll(async () => {
      peer = await factory.start();
    });
    afterAll(async () => {
      await peer?.stop();
    });

    it('resumes on re-run, byte-identical, re-sending no more than the parts in flight', async () => {
      const sizes = {
        'a.wav': 10 * TEST_PART + 1000,
        'b/b.wav': 12 * TEST_PART,
        'c.flac': 9 * TEST_PART + 7,
        'small.mp3': 50_000,
      };
      const total = Object.values(sizes).reduce((a, b) => a + b, 0);
      const { dir, paths } = await makeTree(sizes);
      const dataDir = await makeDataDir();

      const inFlight = new Map<string, number>();
      let confirmed = 0;
      const first = await runChild(peer.target, dataDir, dir, (line) => {
        const id = `${line.key}#${line.partNumber}`;
        if (line.type === 'part-start') inFlight.set(id, line.bytes!);
        if (line.type === 'part-done') {
          inFlight.delete(id);
          confirmed += line.bytes!;
        }
        return confirmed >= total * 0.4;
      });
      expect(first.signal, JSON.stringify([first.code, confirmed, first.lines.at(-1)])).toBe(
        'SIGKILL',
      );
      expect(confirmed).toBeLessThan(total);
      const inFlightBytes = [...inFlight.values()].reduce((a, b) => a + b, 0);
      // Parts whose response arrived but whose journal write hadn't finished are in flight too.
      expect(inFlight.size).toBeLessThanOrEqual(2 * CONCURRENCY);

      const second = await runChild(peer.target, dataDir, dir);
      const report = second.lines.at(-1)!;
      expect(
        second.code,
        JSON.stringify(second.lines.filter((l) => l.type === 'file-failed' || l.type === 'report')),
      ).toBe(0);
      expect(report).toMatchObject({ type: 'report', ok: true });
      for (const rel of Object.keys(sizes)) {
        expect(await sha256Object(peer.target, deliveryKey('Crash Test', rel))).toBe(
          await sha256File(paths[rel as keyof typeof sizes]!),
        );
      }
      // What the first run never started is sent once; anything beyond it is a re-send.
      const neverStarted = total - confirmed - inFlightBytes;
      const resent = report.bytesSent! - neverStarted;
      expect(resent).toBeLessThanOrEqual(inFlightBytes);
      expect((await peer.listKeys()).every((k) => k.startsWith('delivery/audio/Crash Test/'))).toBe(
        true,
      );
    });
  });
}
