/**
 * "Find duplicate audio" (`courier scan --duplicates`, and the app): which files hold the same
 * audio under different tags, cover art or names. Two files are the same audio when their audio
 * payloads (`core/model/audio-payload.ts`: the stored audio, tags excluded) have the same length
 * and the same SHA-256. First every file's payload is located (a few reads per file); only files
 * whose payload length another file shares can be the same audio, so only those are read in
 * full and hashed. Both passes are shared, chunk by chunk, between this thread and worker
 * threads (`worker-lanes.ts`). The same sound encoded again is other bytes, so it is not found:
 * this finds copies, not re-encodings.
 */
import { availableParallelism } from 'node:os';

import { isDeliverable, type LocalFileEntry } from '../files/local-files.js';
import {
  type AudioChunk,
  type FileAudio,
  type FileAudioResult,
  readAudioChunk,
} from './audio-hash.js';
import {
  type ChunkRun,
  type ChunkWorker,
  runChunks,
  startWorkers,
  stopWorkers,
} from './worker-lanes.js';

/** A file to compare: `path` as the user sees it (relative to the folder), `localPath` on disk. */
export interface AudioFile {
  path: string;
  localPath: string;
}

/** How far the check is: files located, then audio bytes hashed. */
export interface DuplicateProgress {
  /** `locating` every file's audio, then `hashing` the audio that may be the same. */
  phase: 'locating' | 'hashing';
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
  /**
   * Worker threads to read with, this thread standing in only for one that fails (default: one
   * per extra core, at most 3, once there are 512 files to locate or 64 MiB of audio to hash;
   * 0: this thread only, reading asynchronously).
   */
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

/** The files of a folder's listing that the check compares: audio files (delivered or not), not empty. */
export function comparedFiles(listing: readonly LocalFileEntry[]): AudioFile[] {
  return listing
    .filter((f) => isDeliverable(f.kind) && f.size > 0)
    .map(({ path, localPath }) => ({ path, localPath }));
}

/** Files per chunk of locating handed to a thread. */
const locateFiles = 128;
/** A hashing chunk holds up to this much audio, or this many files. */
const chunkBytes = 32 * 1024 * 1024;
const chunkFiles = 64;
/** Below this much audio to hash, starting workers costs more than it saves. */
const workerBytes = 64 * 1024 * 1024;

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type Located = { file: AudioFile } & FileAudio;

/** Finds the files of `files` that hold the same audio (see the top of this file). */
export async function findDuplicateAudio(
  files: readonly AudioFile[],
  options: DuplicateOptions = {},
): Promise<DuplicateAudio> {
  const { signal } = options;
  const progress: DuplicateProgress = {
    phase: 'locating',
    located: 0,
    files: files.length,
    bytes: 0,
    total: 0,
  };
  const report = () => options.onProgress?.({ ...progress });
  const unreadable: DuplicateAudio['unreadable'] = [];
  // Workers start for the first pass with enough chunks to share, else for enough audio to hash.
  const cores = Math.min(3, availableParallelism() - 1);
  let workers: ChunkWorker<AudioChunk, FileAudioResult[], number>[] = [];
  const startUpTo = (wanted: number, chunks: number) => {
    const count = Math.min(options.threads ?? wanted, chunks);
    if (workers.length === 0 && count > 0) workers = startWorkers('duplicates-worker', count);
  };
  const share = (
    chunks: AudioChunk[],
    hooks: Pick<ChunkRun<AudioChunk, FileAudioResult[], number>, 'onChunk' | 'onProgress'>,
  ) =>
    runChunks({
      chunks,
      local: (chunk, onBytes) => readAudioChunk(chunk, 'async', onBytes, signal),
      workers,
      // This thread reads asynchronously, at a fraction of a worker's pace: it only stands in.
      mainLane: false,
      signal,
      ...hooks,
    });
  try {
    // Pass 1: where each file's audio is (and the hash of audio that a first read held).
    const locateChunks: AudioChunk[] = [];
    for (let i = 0; i < files.length; i += locateFiles) {
      const paths = files.slice(i, i + locateFiles).map((f) => f.localPath);
      locateChunks.push({ op: 'locate', paths });
    }
    startUpTo(locateChunks.length >= 4 ? cores : 0, locateChunks.length);
    const found = await share(locateChunks, {
      onChunk: (results) => {
        progress.located += results.length;
        report();
      },
    });
    signal?.throwIfAborted();
    const located: Located[] = [];
    for (const [i, results] of found.entries()) {
      for (const [k, result] of results!.entries()) {
        const file = files[i * locateFiles + k]!;
        if ('error' in result) unreadable.push({ path: file.path, message: result.error });
        else if (result.length > 0) located.push({ file, ...result });
      }
    }

    // Only a payload length that several files share can be the same audio.
    const byLength = new Map<number, Located[]>();
    for (const entry of located) {
      const same = byLength.get(entry.length);
      if (same) same.push(entry);
      else byLength.set(entry.length, [entry]);
    }
    const candidates = [...byLength.values()].filter((same) => same.length > 1).flat();
    progress.phase = 'hashing';
    progress.total = candidates.reduce((n, c) => n + c.length, 0);
    progress.bytes = candidates.reduce((n, c) => n + (c.sha256 ? c.length : 0), 0);
    report();

    // Pass 2: the hash of the candidates' audio not hashed yet.
    const chunks: { chunk: AudioChunk & { op: 'hash' }; entries: Located[]; bytes: number }[] = [];
    for (const entry of candidates.filter((c) => !c.sha256)) {
      let last = chunks.at(-1);
      if (!last || last.entries.length >= chunkFiles || last.bytes + entry.length > chunkBytes) {
        last = { chunk: { op: 'hash', files: [] }, entries: [], bytes: 0 };
        chunks.push(last);
      }
      const { localPath } = entry.file;
      last.chunk.files.push({ localPath, ranges: entry.ranges!, length: entry.length });
      last.entries.push(entry);
      last.bytes += entry.length;
    }
    startUpTo(progress.total - progress.bytes >= workerBytes ? cores : 0, chunks.length);
    const hashed = await share(
      chunks.map((c) => c.chunk),
      {
        onProgress: (bytes) => {
          // A chunk a failed worker left is hashed again here: never past the total.
          progress.bytes = Math.min(progress.total, progress.bytes + bytes);
          report();
        },
      },
    );
    signal?.throwIfAborted();
    for (const [i, { entries }] of chunks.entries()) {
      for (const [k, result] of hashed[i]!.entries()) {
        const entry = entries[k]!;
        if ('error' in result) unreadable.push({ path: entry.file.path, message: result.error });
        else entry.sha256 = result.sha256;
      }
    }

    const groups = new Map<string, string[]>();
    for (const { file, length, sha256 } of candidates) {
      if (!sha256) continue;
      const key = `${length}:${sha256}`;
      const same = groups.get(key);
      if (same) same.push(file.path);
      else groups.set(key, [file.path]);
    }
    return {
      groups: [...groups.values()]
        .filter((paths) => paths.length > 1)
        .map((paths) => paths.sort(byPath))
        .sort((a, b) => byPath(a[0]!, b[0]!)),
      bytes: progress.total,
      unreadable: unreadable.sort((a, b) => byPath(a.path, b.path)),
    };
  } finally {
    stopWorkers(workers);
  }
}
