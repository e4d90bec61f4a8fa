import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { proofOfPath } from '../../../src-main/core/files/file-inspection.js';
import {
  blobProof,
  contentProof,
  PROOF_EDGE_BYTES,
  PROOF_PATTERN,
  proofRanges,
} from '../../../src-main/core/model/file-proof.js';

describe('the content proof', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-proof-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const bytes = (size: number, seed = 1) =>
    Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed) & 0xff);

  it('covers the whole of a small file, and both 64 KiB ends of a big one', () => {
    expect(proofRanges(0)).toEqual([[0, 0]]);
    expect(proofRanges(2 * PROOF_EDGE_BYTES)).toEqual([[0, 2 * PROOF_EDGE_BYTES]]);
    expect(proofRanges(10_000_000)).toEqual([
      [0, PROOF_EDGE_BYTES],
      [10_000_000 - PROOF_EDGE_BYTES, 10_000_000],
    ]);
  });

  it.each([0, 5, 2 * PROOF_EDGE_BYTES, 2 * PROOF_EDGE_BYTES + 1, 3_000_000])(
    'is the same from the page’s File and from the disk (%i bytes)',
    async (size) => {
      const content = bytes(size);
      const path = join(dir, `f${size}`);
      await writeFile(path, content);
      const fromPage = await blobProof(new Blob([content]));
      expect(fromPage).toMatch(PROOF_PATTERN);
      expect(proofOfPath(path, size)).toBe(fromPage);
    },
  );

  it('changes with any byte at either end and with the size', async () => {
    const size = 1_000_000;
    const base = await blobProof(new Blob([bytes(size)]));
    const first = bytes(size);
    first[0]! ^= 1;
    const last = bytes(size);
    last[size - 1]! ^= 1;
    expect(await blobProof(new Blob([first]))).not.toBe(base);
    expect(await blobProof(new Blob([last]))).not.toBe(base);
    expect(await blobProof(new Blob([bytes(size + 1)]))).not.toBe(base);
  });

  it('proves nothing for a file shorter than its claimed size', async () => {
    await expect(contentProof(10, async () => new Uint8Array(3))).rejects.toThrow(/shorter/);
    const path = join(dir, 'short');
    await writeFile(path, 'abc');
    expect(proofOfPath(path, 10)).toBeNull();
    expect(proofOfPath(join(dir, 'gone'), 3)).toBeNull();
    // Nor for a folder, nor for a pipe, which is not waited on for bytes that never come.
    expect(proofOfPath(dir, 0)).toBeNull();
    const pipe = join(dir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    expect(proofOfPath(pipe, 0)).toBeNull();
  });
});
