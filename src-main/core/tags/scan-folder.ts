/**
 * Reads every file under a folder for `courier scan`: a recursive walk, NFC relative paths with
 * forward slashes, music-metadata on audio files a few at a time, and each file's problem as a
 * finding on that file (a bad file never stops the scan).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

import type { FileReadResult } from '../model/read-result.js';
import { readTrackFiles, toRelative } from './read-track-file.js';

export { readTrackFile, toRelative } from './read-track-file.js';

/** Options of a folder scan. */
export interface ScanOptions {
  /** Files parsed at once; parsing waits on reads, so a few overlap well. */
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
      // A link to a file is delivered like the file; links to folders are not followed (loops).
      else if (entry.isSymbolicLink() && (await stat(path).catch(() => null))?.isFile()) {
        files.push(path);
      }
    }
  };
  await walk(root);
  return files
    .map((path) => ({ path, key: toRelative(root, path) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((f) => f.path);
}

/** Reads every file under `root` (results in path order). */
export async function scanFolder(
  root: string,
  options: ScanOptions = {},
): Promise<FileReadResult[]> {
  const paths = await listFiles(root);
  return readTrackFiles(root, paths, Math.max(1, options.concurrency ?? 8), options.signal);
}
