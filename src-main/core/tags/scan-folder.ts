/**
 * Reads every file under a folder for `courier scan`: a recursive walk, NFC relative paths with
 * forward slashes, music-metadata's parseFile on audio files a few at a time, and each file's
 * problem as a finding on that file (a bad file never stops the scan). Parsing is CPU-bound, so
 * chunks of files are shared between this thread and worker threads, one per spare core.
 */
import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { FileReadResult } from '../model/read-result.js';
import { readTrackFiles, toRelative } from './read-track-file.js';
import type { ScanChunkRequest } from './scan-worker.js';

export { readTrackFile, toRelative } from './read-track-file.js';

/** Options of a folder scan. */
export interface ScanOptions {
  /** Files parsed at once per thread; parsing waits on many small reads. */
  concurrency?: number;
  /** Worker threads besides this one (default: cores - 2, at most 3: on two cores the libuv pool and GC already use the second core, and a worker measured slower). */
  threads?: number;
  /** Stops the scan early (remaining files are not read). */
  signal?: AbortSignal;
}

const chunkSize = 32;

/** Every regular file under `root`, as absolute paths sorted by relative path. */
export async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  await walk(root);
  return files
    .map((path) => ({ path, key: toRelative(root, path) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((f) => f.path);
}

type ChunkReader = (paths: string[]) => Promise<FileReadResult[]>;

/** A worker thread reading chunks; null when workers cannot start (e.g. inside a bundle). */
function startWorker(
  root: string,
  concurrency: number,
): { read: ChunkReader; stop: () => void } | null {
  // Run from sources (tsx) the worker is a .ts file; built, a .js file beside this one.
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  let worker: Worker;
  try {
    worker = new Worker(new URL(`./scan-worker.${ext}`, import.meta.url));
  } catch {
    return null;
  }
  worker.unref();
  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (r: FileReadResult[]) => void; reject: (e: unknown) => void }
  >();
  let failed: unknown = null;
  worker.on('message', (message: { id: number; results: FileReadResult[] }) => {
    pending.get(message.id)?.resolve(message.results);
    pending.delete(message.id);
  });
  const fail = (error: unknown) => {
    failed = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`scan worker exited with code ${code}`)));
  return {
    read: (paths) =>
      new Promise((resolve, reject) => {
        if (failed) {
          reject(failed);
          return;
        }
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
  const paths = await listFiles(root);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const chunks: string[][] = [];
  for (let i = 0; i < paths.length; i += chunkSize) chunks.push(paths.slice(i, i + chunkSize));
  const threads = Math.min(
    options.threads ?? Math.max(0, Math.min(3, availableParallelism() - 2)),
    Math.max(0, chunks.length - 1),
  );
  const workers = Array.from({ length: threads }, () => startWorker(root, concurrency)).filter(
    (w) => w !== null,
  );
  const local: ChunkReader = (chunk) => readTrackFiles(root, chunk, concurrency);
  const results: FileReadResult[][] = new Array(chunks.length);
  let next = 0;
  const lane = async (read: ChunkReader) => {
    while (next < chunks.length && !options.signal?.aborted) {
      const i = next++;
      try {
        results[i] = await read(chunks[i]!);
      } catch {
        // A worker that died leaves its chunk to this thread; the scan still finishes.
        results[i] = await local(chunks[i]!);
        return;
      }
    }
  };
  try {
    await Promise.all([lane(local), ...workers.map((w) => lane(w.read))]);
  } finally {
    for (const w of workers) w.stop();
  }
  return results.filter((r) => r !== undefined).flat();
}
