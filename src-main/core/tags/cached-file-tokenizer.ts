/**
 * The block-caching tokenizer (`core/model/block-tokenizer.ts`) over a file on disk: 64 KiB
 * blocks, so music-metadata's many small reads cost one system call per block instead of one each.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

import { BlockTokenizer, type ByteSource } from '../model/block-tokenizer.js';

/** How the CLI's scan caches a file's blocks. */
export const fileCache = { blockSize: 64 * 1024, maxBlocks: 8 };

/** A file handle as a `ByteSource`, closed with the tokenizer. */
function fileSource(handle: FileHandle, size: number): ByteSource {
  return {
    size,
    async read(target, position) {
      let filled = 0;
      while (filled < target.length) {
        const { bytesRead } = await handle.read(
          target,
          filled,
          target.length - filled,
          position + filled,
        );
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled;
    },
    close: () => handle.close(),
  };
}

/**
 * Opens `path` as a `ByteSource` read with blocking calls: for a thread with nothing else to do
 * (a scan's worker, the CLI), where each asynchronous call's trip through the thread pool costs
 * more than the read itself. Whoever takes it must close it.
 */
export function openFileSourceSync(path: string): ByteSource {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    return {
      size,
      read: (target, position) => {
        let filled = 0;
        while (filled < target.length) {
          const n = readSync(fd, target, filled, target.length - filled, position + filled);
          if (n === 0) break;
          filled += n;
        }
        return Promise.resolve(filled);
      },
      close: () => {
        closeSync(fd);
        return Promise.resolve();
      },
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Opens `path` as a `ByteSource`; whoever takes it must close it. */
export async function openFileSource(path: string): Promise<ByteSource> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return fileSource(handle, size);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The block-caching tokenizer over a file; create it with `open`. */
export class CachedFileTokenizer extends BlockTokenizer {
  /** Opens `path` for parsing; the caller must close the tokenizer. */
  static async open(path: string): Promise<CachedFileTokenizer> {
    return new CachedFileTokenizer(await openFileSource(path), { path }, fileCache);
  }
}
