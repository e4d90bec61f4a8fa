/**
 * Reads every file under a folder for `courier scan`: a recursive walk, NFC relative paths with
 * forward slashes, music-metadata on audio files a few at a time, and each file's problem as a
 * finding on that file (a bad file never stops the scan). Parsing is CPU-bound, so chunks of
 * files are shared between this thread and worker threads.
 */
import { availableParallelism } from 'node:os';

import { listLocalFiles } from '../files/local-files.js';
import type { FileReadResult } from '../model/read-result.js';
import { readTrackFiles } from './read-track-file.js';
import type { ScanChunk } from './scan-worker.js';
import { runChunks, startWorkers, stopWorkers } from './worker-lanes.js';

export { readTrackFile, toRelative } from './read-track-file.js';

/** Options of a folder scan. */
export interface ScanOptions {
  /** Files parsed at once per thread; parsing waits on reads, so a few overlap well. */
  concurrency?: number;
  /**
   * Read on this thread with blocking calls (faster where nothing else waits: the CLI; never
   * the app's main process). Worker threads always do.
   */
  blockingReads?: boolean;
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
  const chunks: ScanChunk[] = [];
  for (let i = 0; i < paths.length; i += chunkSize) {
    chunks.push({ root, paths: paths.slice(i, i + chunkSize), concurrency });
  }
  // A worker costs a second or so to start; only worth it for larger folders.
  const wanted =
    options.threads ?? (chunks.length >= 20 ? Math.min(3, availableParallelism() - 1) : 0);
  const workers = startWorkers<ScanChunk, FileReadResult[]>(
    'scan-worker',
    Math.min(wanted, chunks.length - 1),
  );
  try {
    const results = await runChunks({
      chunks,
      local: (chunk) =>
        readTrackFiles(root, chunk.paths, concurrency, options.signal, options.blockingReads),
      workers,
      signal: options.signal,
      onChunk: (results, by) => options.onChunk?.({ files: results.length, by }),
    });
    return results.filter((r) => r !== undefined).flat();
  } finally {
    stopWorkers(workers);
  }
}
