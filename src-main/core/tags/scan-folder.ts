/**
 * Reads every file under a folder for `courier scan`: a recursive walk, NFC relative paths with
 * forward slashes, music-metadata's parseFile on audio files a few at a time, and each file's
 * problem as a finding on that file (a bad file never stops the scan).
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

import { parseFile } from 'music-metadata';

import {
  parsedResult,
  precheckFile,
  readFailure,
  type FileReadResult,
} from '../model/read-result.js';
import { draftFromMetadata } from '../model/tags-to-track.js';

/** Options of a folder scan. */
export interface ScanOptions {
  /** Files parsed at once; parsing is mostly I/O waits on small reads. */
  concurrency?: number;
  /** Stops the scan early (remaining files are not read). */
  signal?: AbortSignal;
}

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

/** The path of `path` under `root`: forward slashes, NFC (macOS writes NFD names). */
export function toRelative(root: string, path: string): string {
  return relative(root, path).split(sep).join('/').normalize('NFC');
}

/** Reads one file into a draft or findings. */
export async function readTrackFile(root: string, path: string): Promise<FileReadResult> {
  const file = toRelative(root, path);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    return readFailure(file, error);
  }
  const skipped = precheckFile(file, size);
  if (skipped) return skipped;
  try {
    const meta = await parseFile(path, { skipCovers: true, duration: false });
    return parsedResult(file, meta, () => draftFromMetadata(meta, file));
  } catch (error) {
    return readFailure(file, error);
  }
}

/** Reads every file under `root` (results in path order). */
export async function scanFolder(
  root: string,
  options: ScanOptions = {},
): Promise<FileReadResult[]> {
  const paths = await listFiles(root);
  const results: FileReadResult[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length && !options.signal?.aborted) {
      const i = next++;
      results[i] = await readTrackFile(root, paths[i]!);
    }
  };
  const concurrency = Math.max(1, options.concurrency ?? 8);
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, worker));
  return results.filter((r) => r !== undefined);
}
