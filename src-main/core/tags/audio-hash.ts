/**
 * The work of "Find duplicate audio" on files on disk, run by whichever thread takes a chunk
 * (`duplicates.ts` on this thread, `duplicates-worker.ts` in worker threads): where each file's
 * audio is (`core/model/audio-payload.ts`), and the SHA-256 of those bytes, read 1 MiB at a time.
 * A file's first 64 KiB are read once and serve every small read of its structure; a file whose
 * audio lies within them is hashed at once, so a small file is opened once. Worker threads read
 * with blocking calls (nothing else waits on them, and each call costs a fraction of a promise's
 * trip through libuv's pool); this thread never blocks. A file that cannot be read is an error
 * value, never a throw.
 */
import { createHash } from 'node:crypto';

import { CourierError } from '../errors.js';
import { unreadableReason } from '../files/local-files.js';
import { audioPayload, type ByteRange } from '../model/audio-payload.js';
import type { ByteSource } from '../model/block-tokenizer.js';
import { openFileSource, openFileSourceSync } from './cached-file-tokenizer.js';

/** What a thread learned of one file's audio. */
export interface FileAudio {
  /** The payload's length in bytes. */
  length: number;
  /** Where the payload is (left out of what hashing returns). */
  ranges?: ByteRange[];
  /** The payload's SHA-256, hex, once it was read. */
  sha256?: string;
}

/** A file's audio, or why the file could not be read. */
export type FileAudioResult = FileAudio | { error: string };

/** A chunk of work for a thread: locate the audio of files, or hash located audio. */
export type AudioChunk =
  | { op: 'locate'; paths: string[] }
  | { op: 'hash'; files: { localPath: string; ranges: ByteRange[]; length: number }[] };

/** How a thread reads: `blocking` in a worker thread, `async` on a thread that must not block. */
export type ReadMode = 'blocking' | 'async';

const readSize = 1024 * 1024;
const headSize = 64 * 1024;
/** Files located at once by a thread reading asynchronously: each waits on small reads. */
const asyncConcurrency = 8;

/** `source` with its first `bytes` read once: reads within them are served from memory. */
async function withHead(source: ByteSource, bytes: number): Promise<ByteSource & { held: number }> {
  const buffer = new Uint8Array(Math.min(bytes, source.size));
  const head = buffer.subarray(0, await source.read(buffer, 0));
  return {
    size: source.size,
    held: head.length,
    read(target, position) {
      if (position + target.length > head.length) return source.read(target, position);
      target.set(head.subarray(position, position + target.length));
      return Promise.resolve(target.length);
    },
    close: () => source.close?.() ?? Promise.resolve(),
  };
}

/** Runs `use` on the file at `path`; a file that cannot be read gives an error value. */
async function withFile<T>(
  path: string,
  mode: ReadMode,
  use: (source: ByteSource) => Promise<T>,
  signal?: AbortSignal,
): Promise<T | { error: string }> {
  let source: ByteSource;
  try {
    source = mode === 'blocking' ? openFileSourceSync(path) : await openFileSource(path);
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
  let held = { start: 0, end: 0 };
  let unreported = 0;
  // Reads stop where the last range still to hash ends (no trailing tags read for nothing).
  const limits = ranges.map((range) => range.end);
  for (let r = limits.length - 2; r >= 0; r--) limits[r] = Math.max(limits[r]!, limits[r + 1]!);
  // A small file's audio needs no 1 MiB buffer (zeroed memory, then garbage, for each file).
  const first = ranges.reduce((n, range) => Math.min(n, range.start), Infinity);
  const buffer = new Uint8Array(Math.max(0, Math.min(readSize, (limits[0] ?? 0) - first)));
  for (const [r, range] of ranges.entries()) {
    let at = range.start;
    while (at < range.end) {
      if (at < held.start || at >= held.end) {
        signal?.throwIfAborted();
        if (unreported > 0) onBytes?.(unreported);
        unreported = 0;
        const n = await source.read(buffer.subarray(0, Math.min(readSize, limits[r]! - at)), at);
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

/** Where a file's audio is, and its hash when the audio lies in the file's first 64 KiB. */
async function locate(path: string, mode: ReadMode, signal?: AbortSignal) {
  return withFile(
    path,
    mode,
    async (file): Promise<FileAudio> => {
      const source = await withHead(file, headSize);
      const { ranges, length } = await audioPayload(source);
      if (ranges.every((range) => range.end <= source.held)) {
        return { length, ranges, sha256: await hashRanges(source, ranges) };
      }
      return { length, ranges };
    },
    signal,
  );
}

/**
 * Does one chunk (results in its order): locates files, a few at a time when reading
 * asynchronously, or hashes located audio one file after another. `onBytes` counts bytes hashed
 * of files not hashed when located.
 */
export async function readAudioChunk(
  chunk: AudioChunk,
  mode: ReadMode,
  onBytes?: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<FileAudioResult[]> {
  if (chunk.op === 'hash') {
    const out: FileAudioResult[] = [];
    for (const { localPath, ranges, length } of chunk.files) {
      signal?.throwIfAborted();
      const hash = (source: ByteSource) => hashRanges(source, ranges, onBytes, signal);
      const sha256 = await withFile(localPath, mode, hash, signal);
      out.push(typeof sha256 === 'string' ? { length, sha256 } : sha256);
    }
    return out;
  }
  const { paths } = chunk;
  const out: FileAudioResult[] = new Array(paths.length);
  let next = 0;
  const lane = async () => {
    while (next < paths.length) {
      signal?.throwIfAborted();
      const i = next++;
      out[i] = await locate(paths[i]!, mode, signal);
    }
  };
  const lanes = mode === 'blocking' ? 1 : Math.min(asyncConcurrency, paths.length);
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  return out;
}
