/**
 * What a file was when a delivery was planned: its size, its modification time and the MD5 of
 * its bytes. The uploader compares the file with it before sending (and the bytes it sends, for
 * a whole-file PUT), so what was planned is what is sent; a resume re-reads a file that no
 * longer matches. MD5 because the uploader computes it anyway (Content-MD5, ETags); it is read
 * by hashing threads, never on the main thread, and an unchanged size and mtime reuse a hash
 * already known instead of reading the file again.
 */
import { stat } from 'node:fs/promises';

import { HashPool } from '../storage/file-checksum.js';
import { unreadableReason } from './local-files.js';

/** A file's identity at one moment. */
export interface FileFingerprint {
  size: number;
  mtimeMs: number;
  /** MD5 of the whole file, hex. */
  md5: string;
}

/** Files are hashed this many at a time (one thread each). */
const HASH_THREADS = 2;

let filesHashed = 0;

/**
 * How many files `fingerprintFiles` has read and hashed in this process: lets a test or a
 * benchmark (`bench:sync`) show that files whose size and mtime were known were not read again.
 */
export function hashedFileCount(): number {
  return filesHashed;
}

/** Whether `now` (from a stat) is the file `planned` describes (size, mtime to the ms), unread. */
export function sameStat(
  planned: { size: number; mtimeMs?: number },
  now: { size: number; mtimeMs: number },
): boolean {
  return (
    planned.size === now.size &&
    (planned.mtimeMs === undefined || Math.floor(planned.mtimeMs) === Math.floor(now.mtimeMs))
  );
}

/** A fingerprint, or why the file could not be read. */
export type FingerprintResult = FileFingerprint | { error: string };

/**
 * The fingerprint of each file, in order. `known` gives fingerprints taken earlier (a record's):
 * a file whose size and mtime still match keeps its hash without being read. The stat is taken
 * again after hashing: a file written to meanwhile gets the second stat, so it never matches a
 * hash of other bytes.
 */
export async function fingerprintFiles(
  paths: readonly string[],
  options: { known?: ReadonlyMap<string, FileFingerprint>; signal?: AbortSignal } = {},
): Promise<FingerprintResult[]> {
  const out: FingerprintResult[] = new Array(paths.length);
  let pool: HashPool | undefined;
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const index = next++;
      const path = paths[index]!;
      options.signal?.throwIfAborted();
      try {
        const info = await stat(path);
        const earlier = options.known?.get(path);
        if (earlier && sameStat(earlier, info)) {
          out[index] = earlier;
          continue;
        }
        pool ??= new HashPool(HASH_THREADS);
        filesHashed++;
        const md5 = (await pool.fileMd5(path, 0, info.size)).toString('hex');
        const after = await stat(path);
        out[index] = sameStat(info, after)
          ? { size: info.size, mtimeMs: info.mtimeMs, md5 }
          : { error: 'the file was being written while it was read' };
      } catch (error) {
        out[index] = { error: unreadableReason(error) };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(HASH_THREADS, paths.length) }, worker));
  } finally {
    await pool?.close();
  }
  return out;
}
