/**
 * Reads every file under a folder for `courier scan`: a recursive walk, NFC relative paths with
 * forward slashes, music-metadata on audio files a few at a time, and each file's problem as a
 * finding on that file (a bad file never stops the scan). Parsing is CPU-bound, so chunks of
 * files are shared between this thread and worker threads.
 */
import { availableParallelism } from 'node:os';

import { listLocalFiles, type LocalFileEntry } from '../files/local-files.js';
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
   * List and read on this thread with blocking calls (faster where nothing else waits: the
   * CLI; never the app's main process). Worker threads always read so.
   */
  blockingReads?: boolean;
  /**
   * Worker threads besides this one (default: one per extra core, at most 3, once the scan has
   * enough files to pay for them: `filesForWorkers`).
   */
  threads?: number;
  /** Files per chunk handed to a thread. */
  chunkSize?: number;
  /** Called as each chunk is read, saying by which thread (for progress and tests). */
  onChunk?: (done: { files: number; by: 'main' | 'worker' }) => void;
  /** Stops the scan early (remaining files are not read). */
  signal?: AbortSignal;
}

/** Files per chunk handed to a thread, unless the options say otherwise. */
const CHUNK_SIZE = 48;

/** A worker costs a few hundred milliseconds to start: only worth it for this many chunks. */
const CHUNKS_FOR_WORKERS = 20;

/**
 * Files a scan with blocking reads needs before a worker pays for itself. Each thread warms up
 * its own compiled code: a worker spends about 1.5 CPU s compiling what this thread compiled
 * already, on cores the compiler's threads share, and reads slowly until it is warm. On two
 * cores (5,040 mixed files: 3.1 s alone, 3.5 s with a worker; 10,000: even; 20,000: 15 % faster
 * with one) a worker is a loss below this. A thread with other work to do (the app's main) takes
 * workers sooner, to stay free: `CHUNKS_FOR_WORKERS`.
 */
const FILES_FOR_BLOCKING_WORKERS = 10_000;

type ScanWorkers = ReturnType<typeof startWorkers<ScanChunk, FileReadResult[]>>;

/** How many files a scan has before its worker threads start (`threads` starts them early). */
function filesForWorkers(options: ScanOptions): number {
  if (options.blockingReads === true && options.threads === undefined)
    return FILES_FOR_BLOCKING_WORKERS;
  return CHUNKS_FOR_WORKERS * chunkSizeOf(options);
}

/** Files per chunk handed to a thread (`chunkSize`, else `CHUNK_SIZE`). */
function chunkSizeOf(options: ScanOptions): number {
  return Math.max(1, options.chunkSize ?? CHUNK_SIZE);
}

/** How many worker threads a scan of `files` files starts. */
function workersFor(files: number, options: ScanOptions): number {
  const wanted =
    options.threads ??
    (files >= filesForWorkers(options) ? Math.min(3, availableParallelism() - 1) : 0);
  return Math.max(0, Math.min(wanted, Math.ceil(files / chunkSizeOf(options)) - 1));
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
  return (await scanListedFolder(root, options)).results;
}

/**
 * Lists `root` and reads every file under it (results in the listing's order). The worker
 * threads start loading as soon as the listing has seen enough files to need them, not after it.
 */
export async function scanListedFolder(
  root: string,
  options: ScanOptions = {},
): Promise<{ listing: LocalFileEntry[]; results: FileReadResult[] }> {
  let early: ScanWorkers | undefined;
  let listing: LocalFileEntry[];
  try {
    listing = await listLocalFiles(root, {
      onSeen: (seen) => {
        if (!early && seen >= filesForWorkers(options)) early = startScanWorkers(seen, options);
      },
      // Blocking reads are for a thread with nothing else to do: so is the listing.
      blocking: options.blockingReads === true,
    });
  } catch (error) {
    if (early) stopWorkers(early);
    throw error;
  }
  const paths = listing.map((f) => f.localPath);
  return { listing, results: await scanFiles(root, paths, { ...options, workers: early }) };
}

/** The worker threads for a scan of `files` files (none for a small one). */
function startScanWorkers(files: number, options: ScanOptions): ScanWorkers {
  return startWorkers<ScanChunk, FileReadResult[]>('scan-worker', workersFor(files, options));
}

/** Reads `paths`, files under `root` (results in the order of `paths`). */
export async function scanFiles(
  root: string,
  paths: readonly string[],
  options: ScanOptions & { workers?: ScanWorkers | undefined } = {},
): Promise<FileReadResult[]> {
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const chunkSize = chunkSizeOf(options);
  const chunks: ScanChunk[] = [];
  for (let i = 0; i < paths.length; i += chunkSize) {
    chunks.push({ root, paths: paths.slice(i, i + chunkSize), concurrency });
  }
  const workers = options.workers ?? startScanWorkers(paths.length, options);
  const shared = new Map<string, string>();
  try {
    const results = await runChunks({
      chunks,
      local: (chunk) =>
        readTrackFiles(root, chunk.paths, concurrency, options.signal, options.blockingReads),
      workers,
      signal: options.signal,
      onChunk: (results, by) => {
        if (by === 'worker') shareStrings(results, shared);
        options.onChunk?.({ files: results.length, by });
      },
    });
    return results.filter((r) => r !== undefined).flat();
  } finally {
    stopWorkers(workers);
  }
}

/** Strings up to this length are shared (names and codes; titles and paths are a track's own). */
const SHARED_MAX_LENGTH = 32;

/**
 * Results from a worker thread arrive as copies, every string a string of its own: the names each
 * track repeats (tag ids, codecs, roles, where a value came from) were held once per track, an
 * eighth of what a plan of 100,000 files holds. Each short string of `value` is swapped, in place,
 * for the one copy `shared` keeps.
 */
function shareStrings(value: unknown, shared: Map<string, string>): void {
  if (typeof value !== 'object' || value === null) return;
  const entries = value as Record<string, unknown>;
  for (const key of Object.keys(entries)) {
    const item = entries[key];
    if (typeof item === 'string') {
      if (item.length > SHARED_MAX_LENGTH) continue;
      const one = shared.get(item);
      if (one === undefined) shared.set(item, item);
      else entries[key] = one;
    } else shareStrings(item, shared);
  }
}
