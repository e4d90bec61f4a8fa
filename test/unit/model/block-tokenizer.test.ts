import { EndOfStreamError, fromBuffer } from 'strtok3/core';
import { describe, expect, it } from 'vitest';

import { BlockTokenizer, type ByteSource } from '../../../src-main/core/model/block-tokenizer.js';

const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7 + 3) % 256);

/** An in-memory source that records every read it is asked for. */
function recordingSource(): ByteSource & { reads: [number, number][]; closed: boolean } {
  const source = {
    size: bytes.length,
    reads: [] as [number, number][],
    closed: false,
    async read(target: Uint8Array, position: number) {
      source.reads.push([position, target.length]);
      const part = bytes.subarray(position, position + target.length);
      target.set(part);
      return part.length;
    },
    async close() {
      source.closed = true;
    },
  };
  return source;
}

const cache = { blockSize: 64, maxBlocks: 2 };

describe('BlockTokenizer', () => {
  it('reads what a plain tokenizer reads, across block boundaries and at the end', async () => {
    const tokenizer = new BlockTokenizer(recordingSource(), { path: 'a.flac' }, cache);
    const plain = fromBuffer(bytes);
    // Small reads, straddling blocks, going back, a large one, and one past the end.
    for (const [position, length] of [
      [0, 10],
      [60, 10],
      [5, 3],
      [100, 120],
      [130, 200],
      [640, 160],
      [990, 20],
    ] as const) {
      const a = new Uint8Array(length);
      const b = new Uint8Array(length);
      const got = await tokenizer.readBuffer(a, { position, mayBeLess: true });
      expect(got).toBe(await plain.readBuffer(b, { position, mayBeLess: true }));
      expect(a).toEqual(b);
      expect(tokenizer.position).toBe(position + got);
    }
    await expect(tokenizer.peekBuffer(new Uint8Array(20), { position: 990 })).rejects.toThrow(
      EndOfStreamError,
    );
  });

  it('reads each block of the source once while it is kept, and large reads directly', async () => {
    const source = recordingSource();
    const tokenizer = new BlockTokenizer(source, { path: 'a.mp3' }, cache);
    for (let position = 0; position < 120; position += 10) {
      await tokenizer.readBuffer(new Uint8Array(10), { position });
    }
    expect(source.reads).toEqual([
      [0, 64],
      [64, 64],
    ]);
    source.reads.length = 0;
    await tokenizer.readBuffer(new Uint8Array(300), { position: 200 });
    expect(source.reads).toEqual([[200, 300]]);
    expect(tokenizer.fileInfo).toMatchObject({ path: 'a.mp3', size: bytes.length });
    await tokenizer.close();
    expect(source.closed).toBe(true);
  });

  it('gives the bytes at a position as a plain read does, from the cache without a copy', async () => {
    const source = recordingSource();
    const tokenizer = new BlockTokenizer(source, { path: 'a.mp4' }, cache);
    // Within a block, straddling two, longer than a block, at the end, past it, and empty.
    for (const [position, length] of [
      [0, 10],
      [60, 10],
      [100, 150],
      [990, 20],
      [1000, 4],
      [2000, 4],
      [10, 0],
    ] as const) {
      expect(await tokenizer.bytesAt(position, length)).toEqual(
        bytes.subarray(position, position + length),
      );
    }
    // The bytes of a block already read come out of it: no read of the source, and no copy.
    source.reads.length = 0;
    const view = await tokenizer.bytesAt(964, 30);
    const again = await tokenizer.bytesAt(970, 2);
    expect(source.reads).toEqual([]);
    expect(view.buffer).toBe(again.buffer);
  });

  it('gives only the bytes a source had when it ends before its size', async () => {
    // A file cut after its size was taken: the block holds less than its place says.
    const source = { ...recordingSource(), size: 1100 };
    const tokenizer = new BlockTokenizer(source, { path: 'a.wav' }, cache);
    expect(await tokenizer.bytesAt(980, 40)).toEqual(bytes.subarray(980, 1000));
    expect(await tokenizer.bytesAt(1010, 40)).toEqual(new Uint8Array(0));
  });
});
