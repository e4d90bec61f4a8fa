/**
 * The two passes of "Find duplicate audio" over files on disk: where each file's audio is
 * (`core/model/audio-payload.ts`), then the SHA-256 of those bytes, read 1 MiB at a time. Run by
 * whichever thread takes a chunk: `duplicates.ts` on this thread, `duplicates-worker.ts` in
 * worker threads. A file that cannot be read is an error value, never a throw.
 */
import { createHash } from 'node:crypto';

import { CourierError } from '../errors.js';
import { unreadableReason } from '../files/local-files.js';
import { audioPayload, type ByteRange } from '../model/audio-payload.js';
import type { ByteSource } from '../model/block-tokenizer.js';
import { openFileSource } from './cached-file-tokenizer.js';

/** Where a file's audio is, or why it could not be read. */
export type Located = { ranges: ByteRange[]; length: number } | { error: string };

/** The SHA-256 of a file's audio (hex), or why it could not be read. */
export type Hashed = { sha256: string } | { error: string };

/** A file to hash: where it is and which of its bytes are its audio. */
export interface HashJob {
  localPath: string;
  ranges: ByteRange[];
}

/** A chunk of hashing handed to a thread. */
export interface HashChunk {
  files: HashJob[];
}

const readSize = 1024 * 1024;

/** Runs `use` on the file at `path` opened as a `ByteSource`; an unreadable file is an error. */
async function withFile<T>(
  path: string,
  use: (source: ByteSource) => Promise<T>,
  signal?: AbortSignal,
): Promise<T | { error: string }> {
  let source: ByteSource;
  try {
    source = await openFileSource(path);
  } catch (error) {
    return { error: unreadableReason(error) };
  }
  try {
    return await use(source);
  } catch (error) {
    if (signal?.aborted) throw error;
    return { error: error instanceof CourierError ? error.message : unreadableReason(error) };
  } finally {
    await source.close?.();
  }
}

/** Where the audio of each file is, `concurrency` files at a time (results in order). */
export async function locatePayloads(
  paths: readonly string[],
  concurrency: number,
  signal?: AbortSignal,
): Promise<Located[]> {
  const out: Located[] = new Array(paths.length);
  let next = 0;
  const lane = async () => {
    while (next < paths.length) {
      signal?.throwIfAborted();
      const i = next++;
      out[i] = await withFile(
        paths[i]!,
        async (source) => {
          const { ranges, length } = await audioPayload(source);
          return { ranges, length };
        },
        signal,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, lane));
  return out;
}

/**
 * The SHA-256 of `ranges` of `source`, in their order, read 1 MiB at a time: ranges close
 * together (an Ogg file's page bodies) are served by the same read. `onBytes` is told how many
 * bytes were hashed after each read.
 */
export async function hashRanges(
  source: ByteSource,
  ranges: readonly ByteRange[],
  onBytes?: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const hash = createHash('sha256');
  const buffer = new Uint8Array(readSize);
  let held = { start: 0, end: 0 };
  let unreported = 0;
  // Reads stop where the last range still to hash ends (no trailing tags read for nothing).
  const limits = ranges.map((range) => range.end);
  for (let r = limits.length - 2; r >= 0; r--) limits[r] = Math.max(limits[r]!, limits[r + 1]!);
  for (const [r, range] of ranges.entries()) {
    const limit = limits[r]!;
    let at = range.start;
    while (at < range.end) {
      if (at < held.start || at >= held.end) {
        signal?.throwIfAborted();
        if (unreported > 0) onBytes?.(unreported);
        unreported = 0;
        const n = await source.read(buffer.subarray(0, Math.min(readSize, limit - at)), at);
        if (n === 0) throw new CourierError('changed', 'the file changed while it was being read');
        held = { start: at, end: at + n };
      }
      const to = Math.min(range.end, held.end);
      hash.update(buffer.subarray(at - held.start, to - held.start));
      unreported += to - at;
      at = to;
    }
  }
  if (unreported > 0) onBytes?.(unreported);
  return hash.digest('hex');
}

/** Hashes the audio of each file of a chunk, one file at a time (results in order). */
export async function hashPayloads(
  chunk: HashChunk,
  onBytes?: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<Hashed[]> {
  const out: Hashed[] = [];
  for (const job of chunk.files) {
    signal?.throwIfAborted();
    out.push(
      await withFile(
        job.localPath,
        async (source) => ({ sha256: await hashRanges(source, job.ranges, onBytes, signal) }),
        signal,
      ),
    );
  }
  return out;
}
