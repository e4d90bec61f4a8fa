/**
 * "Find duplicate audio" (`courier scan --duplicates`, and the app): which files hold the same
 * audio under different tags, cover art or names. Two files are the same audio when their audio
 * payloads (`core/model/audio-payload.ts`: the stored audio, tags excluded) have the same length
 * and the same SHA-256. First every file's payload is located (a few reads per file); only files
 * whose payload length another file shares can be the same audio, so only those are hashed, in
 * chunks shared between this thread and worker threads. The same sound encoded again is other
 * bytes, so it is not found: this finds copies, not covers.
 */
import { availableParallelism } from 'node:os';

import type { ByteRange } from '../model/audio-payload.js';
import { type HashChunk, type Hashed, hashPayloads, locatePayloads } from './audio-hash.js';
import { runChunks, startWorkers, stopWorkers } from './worker-lanes.js';

/** A file to compare: `path` as the user sees it (relative to the folder), `localPath` on disk. */
export interface AudioFile {
  path: string;
  localPath: string;
}

/** How far the check is: files located, then audio bytes hashed. */
export interface DuplicateProgress {
  /** Files whose audio was located, of `files`. */
  located: number;
  files: number;
  /** Audio bytes hashed, of `total`; `total` is known once every file is located. */
  bytes: number;
  total: number;
}

/** Options of `findDuplicateAudio`. */
export interface DuplicateOptions {
  onProgress?: (progress: DuplicateProgress) => void;
  /** Stops the check: `findDuplicateAudio` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Hashing threads besides this one (default: one per extra core, at most 3, for 64 MiB or more). */
  threads?: number;
}

/** What the check found. */
export interface DuplicateAudio {
  /** Files holding the same audio: each group's paths sorted, groups sorted by their first path. */
  groups: string[][];
  /** Audio bytes hashed: those of the files whose audio length another file shares. */
  bytes: number;
  /** Files that could not be read, and why (they are in no group). */
  unreadable: { path: string; message: string }[];
}

/** Files located at once on this thread: locating waits on small reads. */
const locateConcurrency = 8;
/** A hashing chunk holds up to this much audio, or this many files. */
const chunkBytes = 32 * 1024 * 1024;
const chunkFiles = 64;
/** Below this much audio to hash, starting workers costs more than it saves. */
const workerThreshold = 64 * 1024 * 1024;

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Finds the files of `files` that hold the same audio (see the top of this file). */
export async function findDuplicateAudio(
  files: readonly AudioFile[],
  options: DuplicateOptions = {},
): Promise<DuplicateAudio> {
  const { signal } = options;
  const progress: DuplicateProgress = { located: 0, files: files.length, bytes: 0, total: 0 };
  const report = () => options.onProgress?.({ ...progress });
  const unreadable: DuplicateAudio['unreadable'] = [];

  // Pass 1: where each file's audio is.
  const located: { file: AudioFile; ranges: ByteRange[]; length: number }[] = [];
  const batch = 256;
  for (let i = 0; i < files.length; i += batch) {
    const slice = files.slice(i, i + batch);
    const results = await locatePayloads(
      slice.map((f) => f.localPath),
      locateConcurrency,
      signal,
    );
    for (const [k, result] of results.entries()) {
      const file = slice[k]!;
      if ('error' in result) unreadable.push({ path: file.path, message: result.error });
      else if (result.length > 0) located.push({ file, ...result });
    }
    progress.located += slice.length;
    report();
  }

  // Only a payload length that several files share can be the same audio.
  const byLength = new Map<number, typeof located>();
  for (const entry of located) {
    const same = byLength.get(entry.length) ?? [];
    same.push(entry);
    byLength.set(entry.length, same);
  }
  const candidates = [...byLength.values()].filter((same) => same.length > 1).flat();
  progress.total = candidates.reduce((n, c) => n + c.length, 0);
  report();

  // Pass 2: the hash of each candidate's audio, in chunks shared with worker threads.
  const chunks: { chunk: HashChunk; entries: typeof candidates; bytes: number }[] = [];
  for (const entry of candidates) {
    let last = chunks.at(-1);
    if (!last || last.entries.length >= chunkFiles || last.bytes + entry.length > chunkBytes) {
      last = { chunk: { files: [] }, entries: [], bytes: 0 };
      chunks.push(last);
    }
    last.chunk.files.push({ localPath: entry.file.localPath, ranges: entry.ranges });
    last.entries.push(entry);
    last.bytes += entry.length;
  }
  const wanted =
    options.threads ??
    (progress.total >= workerThreshold ? Math.min(3, availableParallelism() - 1) : 0);
  const workers = startWorkers<HashChunk, Hashed[], number>(
    'duplicates-worker',
    Math.min(wanted, chunks.length - 1),
  );
  let hashed: (Hashed[] | undefined)[];
  try {
    hashed = await runChunks({
      chunks: chunks.map((c) => c.chunk),
      local: (chunk, onBytes) => hashPayloads(chunk, onBytes, signal),
      workers,
      signal,
      onProgress: (bytes) => {
        // A chunk a failed worker left is hashed again here: never past the total.
        progress.bytes = Math.min(progress.total, progress.bytes + bytes);
        report();
      },
    });
  } finally {
    stopWorkers(workers);
  }
  signal?.throwIfAborted();

  const groups = new Map<string, string[]>();
  for (const [i, { entries }] of chunks.entries()) {
    for (const [k, result] of hashed[i]!.entries()) {
      const { file, length } = entries[k]!;
      if ('error' in result) {
        unreadable.push({ path: file.path, message: result.error });
        continue;
      }
      const key = `${length}:${result.sha256}`;
      groups.set(key, [...(groups.get(key) ?? []), file.path]);
    }
  }
  return {
    groups: [...groups.values()]
      .filter((paths) => paths.length > 1)
      .map((paths) => paths.sort(byPath))
      .sort((a, b) => byPath(a[0]!, b[0]!)),
    bytes: progress.total,
    unreadable: unreadable.sort((a, b) => byPath(a.path, b.path)),
  };
}
