/** Reads one file of a scanned folder into a draft or findings (shared by the scan's threads). */
import { relativeName } from '../files/local-files.js';
import { opensForContent } from '../model/audio-formats.js';
import type { ByteSource } from '../model/block-tokenizer.js';
import { readAudio } from '../model/read-audio.js';
import { type FileReadResult, precheckFile, readFailure } from '../model/read-result.js';
import { fileCache, openFileSource, openFileSourceSync } from './cached-file-tokenizer.js';

/** The path of `path` under `root`: forward slashes, NFC (macOS writes NFD names). */
export const toRelative = relativeName;

/**
 * Reads one file: skipped by name or size, else parsed and checked (`readAudio`); `blocking`
 * reads it with blocking calls (a worker thread, the CLI: never the app's main process).
 */
export async function readTrackFile(
  root: string,
  path: string,
  blocking = false,
): Promise<FileReadResult> {
  const file = toRelative(root, path);
  // Non-audio files are settled by name alone, without touching the disk; a file named as no
  // known kind (no extension, `.part`) is opened, as its content may be audio.
  const byName = precheckFile(file, 1);
  if (byName && !opensForContent(file)) return byName;
  let source: ByteSource;
  try {
    source = blocking ? openFileSourceSync(path) : await openFileSource(path);
  } catch (error) {
    return readFailure(file, error);
  }
  return readAudio(source, file, { cache: fileCache });
}

/** How long blocking reads run before they let the event loop turn. */
const yieldEveryMs = 2;

/**
 * Reads files `concurrency` at a time (one at a time with `blocking` reads, which leave nothing
 * to overlap); results in the order of `paths` (fewer if aborted).
 */
export async function readTrackFiles(
  root: string,
  paths: string[],
  concurrency: number,
  signal?: AbortSignal,
  blocking = false,
): Promise<FileReadResult[]> {
  const results: FileReadResult[] = new Array(paths.length);
  let next = 0;
  let yielded = performance.now();
  const lane = async () => {
    while (next < paths.length && !signal?.aborted) {
      const i = next++;
      results[i] = await readTrackFile(root, paths[i]!, blocking);
      // Blocking reads never leave the thread idle: every few milliseconds (a turn of the
      // event loop per file cost more than some files' reading), let it answer its workers
      // and Ctrl-C.
      if (blocking && performance.now() - yielded >= yieldEveryMs) {
        await new Promise((resolve) => setImmediate(resolve));
        yielded = performance.now();
      }
    }
  };
  const lanes = blocking ? 1 : Math.max(1, Math.min(concurrency, paths.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results.filter((r) => r !== undefined);
}
