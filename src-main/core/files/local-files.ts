/**
 * The one listing of a folder on disk, used by `courier scan`, by delivery planning and by the
 * uploader alike, so that all three see the same files: recursive; relative paths in NFC with
 * forward slashes; hidden entries (a name starting with '.') listed as hidden and hidden folders
 * not entered; a link to a file listed like the file, links to folders not followed (loops);
 * sorted by relative path.
 */
import { type Dirent, readdirSync, type Stats, statSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

import {
  audioMagicLength,
  type FileKind,
  fileKind,
  sniffAudioExtension,
} from '../model/audio-formats.js';

/** One file found under a folder. */
export interface LocalFileEntry {
  /** Relative to the listed folder: NFC, forward slashes. */
  path: string;
  localPath: string;
  size: number;
  mtimeMs: number;
  kind: FileKind;
}

/** Whether a delivery holds files of this kind (unsupported audio is held, and blocks). */
export function isDeliverable(kind: FileKind): boolean {
  return kind === 'audio' || kind === 'unsupported-audio';
}

/** The path of `path` relative to `root`, as every listing names it. */
export function relativeName(root: string, path: string): string {
  return relative(root, path).split(sep).join('/').normalize('NFC');
}

/**
 * The extension of the audio a file on disk holds by its first bytes (`sniffAudioExtension`), or
 * null when they are not audio or cannot be read.
 */
export async function sniffAudioFile(localPath: string): Promise<string | null> {
  const head = new Uint8Array(audioMagicLength);
  try {
    const handle = await open(localPath, 'r');
    try {
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      return sniffAudioExtension(head.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** Why a file could not be read, in words (from the error of opening or reading it). */
export function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'the file is gone';
  if (code === 'EACCES' || code === 'EPERM') return 'the file cannot be read (permissions)';
  return `the file cannot be read (${code ?? (error as Error).message})`;
}

/**
 * Reads and stats in flight at once while listing: enough to keep the thread pool busy. Each
 * stat in flight holds a request, its promise and its result; with no bound, a 100,000-file
 * listing started them all at once and peaked at half a gigabyte for 16 MB of entries.
 */
const LISTING_CONCURRENCY = 64;

/** How a folder is listed. */
export interface ListingOptions {
  /** Hears the entries seen so far, as each folder is read. */
  onSeen?: (entries: number) => void;
  /**
   * Lists with blocking calls: for a thread with nothing else to do meanwhile (the CLI), where
   * each stat's trip through the thread pool costs more than the stat (5,000 files: 0.1 s
   * instead of 0.3 s; never the app's main process).
   */
  blocking?: boolean;
}

/** Every file under `root`, sorted by relative path. */
export async function listLocalFiles(
  root: string,
  options: ListingOptions = {},
): Promise<LocalFileEntry[]> {
  const files: LocalFileEntry[] = [];
  let seen = 0;
  const found = (localPath: string, info: Stats | null) => {
    if (!info?.isFile()) return;
    const path = relativeName(root, localPath);
    files.push({ path, localPath, size: info.size, mtimeMs: info.mtimeMs, kind: fileKind(path) });
  };
  /** A folder's entries: its folders to walk, its files (and links to files) to stat. */
  const classify = (dir: string, entries: Dirent[]) => {
    seen += entries.length;
    options.onSeen?.(seen);
    const folders: string[] = [];
    const candidates: string[] = [];
    for (const entry of entries) {
      const localPath = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) folders.push(localPath);
      } else if (entry.isFile() || entry.isSymbolicLink()) candidates.push(localPath);
    }
    return { folders, candidates };
  };
  if (options.blocking) {
    const walk = (dir: string): void => {
      const { folders, candidates } = classify(dir, readdirSync(dir, { withFileTypes: true }));
      for (const localPath of candidates) found(localPath, statOrNull(localPath));
      for (const folder of folders) walk(folder);
    };
    walk(root);
  } else {
    // The folders are read and their files stat'ed side by side (one at a time, a listing of
    // thousands of files waits on thousands of round trips through the thread pool), a bounded
    // number at once.
    await boundedTasks(LISTING_CONCURRENCY, (add) => {
      const walk = async (dir: string): Promise<void> => {
        const { folders, candidates } = classify(dir, await readdir(dir, { withFileTypes: true }));
        for (const folder of folders) add(() => walk(folder));
        for (const localPath of candidates) {
          add(async () => found(localPath, await stat(localPath).catch(() => null)));
        }
      };
      add(() => walk(root));
    });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * `statSync`, or null where the entry cannot be stat'ed (gone, a broken link): a failed `stat`
 * leaves the file out of the thread-pool listing the same way.
 */
function statOrNull(localPath: string): Stats | null {
  try {
    return statSync(localPath);
  } catch {
    return null;
  }
}

/**
 * Runs the tasks `start` adds, and those they add in turn, at most `limit` at once (the newest
 * first, so a folder's files are stat'ed before more folders are read); rejects with the first
 * failure.
 */
function boundedTasks(
  limit: number,
  start: (add: (task: () => Promise<void>) => void) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue: Array<() => Promise<void>> = [];
    let running = 0;
    let failed = false;
    const pump = () => {
      while (!failed && running < limit && queue.length > 0) {
        const task = queue.pop()!;
        running++;
        task().then(
          () => {
            running--;
            if (running === 0 && queue.length === 0) resolve();
            else pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
    };
    start((task) => {
      queue.push(task);
      // Started on the next turn: `walk` adds a whole folder's entries before any of them runs.
      if (queue.length === 1) queueMicrotask(pump);
    });
  });
}
