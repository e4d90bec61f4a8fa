/** Reads one file of a scanned folder into a draft or findings (shared by the scan's threads). */
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';

import { type IAudioMetadata, parseFromTokenizer } from 'music-metadata';

import {
  type FileReadResult,
  parsedResult,
  precheckFile,
  readFailure,
} from '../model/read-result.js';
import { draftFromMetadata } from '../model/tags-to-track.js';
import { CachedFileTokenizer } from './cached-file-tokenizer.js';

/** The path of `path` under `root`: forward slashes, NFC (macOS writes NFD names). */
export function toRelative(root: string, path: string): string {
  return relative(root, path).split(sep).join('/').normalize('NFC');
}

/** Reads one file: skipped by name or size, else parsed (covers and duration skipped). */
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
    const tokenizer = await CachedFileTokenizer.open(path);
    let meta: IAudioMetadata;
    try {
      meta = await parseFromTokenizer(tokenizer, { skipCovers: true, duration: false });
    } finally {
      await tokenizer.close();
    }
    return parsedResult(file, meta, () => draftFromMetadata(meta, file));
  } catch (error) {
    return readFailure(file, error);
  }
}

/** Reads files `concurrency` at a time; results in the order of `paths` (fewer if aborted). */
export async function readTrackFiles(
  root: string,
  paths: string[],
  concurrency: number,
  signal?: AbortSignal,
): Promise<FileReadResult[]> {
  const results: FileReadResult[] = new Array(paths.length);
  let next = 0;
  const lane = async () => {
    while (next < paths.length && !signal?.aborted) {
      const i = next++;
      results[i] = await readTrackFile(root, paths[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, lane));
  return results.filter((r) => r !== undefined);
}
