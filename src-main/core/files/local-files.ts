/**
 * The one listing of a folder on disk, used by `courier scan`, by delivery planning and by the
 * uploader alike, so that all three see the same files: recursive; relative paths in NFC with
 * forward slashes; hidden entries (a name starting with '.') listed as hidden and hidden folders
 * not entered; a link to a file listed like the file, links to folders not followed (loops);
 * sorted by relative path.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

import { type FileKind, fileKind } from '../model/audio-formats.js';

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

/** Why a file could not be read, in words (from the error of opening or reading it). */
export function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'the file is gone';
  if (code === 'EACCES' || code === 'EPERM') return 'the file cannot be read (permissions)';
  return `the file cannot be read (${code ?? (error as Error).message})`;
}

/** Every file under `root`, sorted by relative path; `onSeen` hears the entries seen so far. */
export async function listLocalFiles(
  root: string,
  onSeen?: (entries: number) => void,
): Promise<LocalFileEntry[]> {
  const files: LocalFileEntry[] = [];
  let seen = 0;
  // The folders are walked and their files stat'ed side by side: one at a time, a listing of
  // thousands of files waits on thousands of round trips through the thread pool.
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    seen += entries.length;
    onSeen?.(seen);
    await Promise.all(
      entries.map(async (entry) => {
        const localPath = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!entry.name.startsWith('.')) await walk(localPath);
          return;
        }
        if (!entry.isFile() && !entry.isSymbolicLink()) return;
        const info = await stat(localPath).catch(() => null);
        if (!info?.isFile()) return;
        const path = relativeName(root, localPath);
        files.push({
          path,
          localPath,
          size: info.size,
          mtimeMs: info.mtimeMs,
          kind: fileKind(path),
        });
      }),
    );
  };
  await walk(root);
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
