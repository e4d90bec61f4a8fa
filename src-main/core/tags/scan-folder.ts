/**
 * Reads every file under a folder for `courier scan`: a recursive walk, NFC relative paths with
 * forward slashes, music-metadata on audio files a few at a time, and each file's problem as a
 * finding on that file (a bad file never stops the scan). Parsing is CPU-bound, so chunks of
 * files are shared between this thread and worker threads.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { listLocalFiles } from '../files/local-files.js';
import type { FileReadResult } from '../model/read-result.js';
import { readTrackFiles } from './read-track-file.js';
import type { ScanChunkRequest, ScanChunkResponse } from './scan-worker.js';

export { readTrackFile, toRelative } from './read-track-file.js';

/** Options of a folder scan. */
export interface ScanOptions {
  /** Files parsed at once per thread; parsing waits on reads, so a few overlap well. */
  concurrency?: number;
  /** Worker threads besides this one (default: one per extra core, at most 3). */
  threads?: number;
  /** Files per chunk handed to a thread. */
  chunkSize?: number;
  /** Called as each chunk is read, saying by which thread (for progress and tests). */
  onChunk?: (done: { files: number; by: 'main' | 'worker' }) => void;
  /** Stops the scan early (remaining files are not read). */
  signal?: AbortSignal;
}

/** Every file under `root`, as absolute paths sorted by relative path (`listLocalFiles`). */
export async function listFiles(root: string): Promise<string[]> {
  return (await listLocalFiles(root)).map((f) => f.localPath);
}

type ChunkReader = (paths: string[]) => Promise<FileReadResult[]>;

function createWorker(): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./scan-worker.js', import.meta.url));
  // Run from sources, a worker must register tsx itself: Node 20 gives workers no loader hooks.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./scan-worker.ts', import.meta.url).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); })`, {
    eval: true,
  });
}

/** A worker thread reading chunks; its failure rejects its pending chunks (read locally then). */
function startWorker(
  root: string,
  concurrency: number,
): { read: ChunkReader; stop: () => void } | null {
  let worker: Worker;
  try {
    worker = createWorker();
  } catch {
    return null;
  }
  let nextId = 0;
  let failed: unknown = null;
  const pending = new Map<
    number,
    { resolve: (r: FileReadResult[]) => void; reject: (e: unknown) => void }
  >();
  worker.on('message', (message: ScanChunkResponse) => {
    pending.get(message.id)?.resolve(message.results);
    pending.delete(message.id);
  });
  const fail = (error: unknown) => {
    failed ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`scan worker exited with code ${code}`)));
  return {
    read: (paths) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed);
        const id = nextId++;
        pending.set(id, { resolve, reject });
        const request: ScanChunkRequest = { id, root, paths, concurrency };
        worker.postMessage(request);
      }),
    stop: () => void worker.terminate(),
  };
}

/** Reads every file under `root` (results in path order). */
export async function scanFolder(
  root: string,
  options: ScanOptions = {},
): Promise<FileReadResult[]> {
  return scanFiles(root, await listFiles(root), options);
}

/** Reads `paths`, files under `root` (results in the order of `paths`). */
export async function scanFiles(
  root: string,
  paths: readonly string[],
  options: ScanOptions = {},
): Promise<FileReadResult[]> {
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const chunkSize = Math.max(1, options.chunkSize ?? 48);
  const chunks: string[][] = [];
  for (let i = 0; i < paths.length; i += chunkSize) chunks.push(paths.slice(i, i + chunkSize));
  // A worker costs a second or so to start; only worth it for larger folders.
  const wanted =
    options.threads ?? (chunks.length >= 20 ? Math.min(3, availableParallelism() - 1) : 0);
  const workers = Array.from({ length: Math.max(0, Math.min(wanted, chunks.length - 1)) }, () =>
    startWorker(root, concurrency),
  ).filter((w) => w !== null);
  const local: ChunkReader = (chunk) => readTrackFiles(root, chunk, concurrency, options.signal);
  const results: FileReadResult[][] = new Array(chunks.length);
  let next = 0;
  const lane = async (read: ChunkReader, by: 'main' | 'worker') => {
    while (next < chunks.length && !options.signal?.aborted) {
      const i = next++;
      try {
        results[i] = await read(chunks[i]!);
        options.onChunk?.({ files: results[i]!.length, by });
      } catch {
        // A worker that failed leaves its chunk, and the rest, to this thread.
        results[i] = await local(chunks[i]!);
        options.onChunk?.({ files: results[i]!.length, by: 'main' });
        return;
      }
    }
  };
  try {
    await Promise.all([lane(local, 'main'), ...workers.map((w) => lane(w.read, 'worker'))]);
  } finally {
    for (const w of workers) w.stop();
  }
  return results.filter((r) => r !== undefined).flat();
}
