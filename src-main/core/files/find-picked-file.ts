import { readdir, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

import { type FileClaim, sameFile } from './file-grants.js';

/** How far below a root, and through how many folders, a picked folder is looked for. */
const MAX_DEPTH = 4;
const MAX_FOLDERS_VISITED = 20_000;

/**
 * A browser does not reveal where a picked or dropped file lives, only its path relative to the
 * picked folder (`Album/01.flac`). The browser host finds it again under the folders it was told
 * it may serve (`--root`), and only accepts a file whose size and mtime match what the browser
 * saw. Electron never needs this: its preload knows each file's real path.
 */
export class PickedFileFinder {
  readonly #roots: string[];
  /** Where a picked top-level folder name was found last time. */
  readonly #folders = new Map<string, string[]>();

  constructor(roots: string[]) {
    this.#roots = roots;
  }

  /** The absolute path of the file the browser describes, or null when none matches. */
  async find(relativePath: string, claim: FileClaim): Promise<string | null> {
    const segments = relativePath.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes(sep))) return null;
    for (const root of this.#roots) {
      const direct = join(root, ...segments);
      if (await matches(direct, claim)) return direct;
    }
    if (segments.length < 2) return null;
    const [top, ...rest] = segments as [string, ...string[]];
    for (const folder of await this.#foldersNamed(top)) {
      const candidate = join(folder, ...rest);
      if (await matches(candidate, claim)) return candidate;
    }
    return null;
  }

  async #foldersNamed(name: string): Promise<string[]> {
    const cached = this.#folders.get(name);
    if (cached) return cached;
    const found: string[] = [];
    let visited = 0;
    let level = this.#roots.slice();
    for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
      const next: string[] = [];
      for (const dir of level) {
        if (++visited > MAX_FOLDERS_VISITED) break;
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name === 'node_modules') {
            continue;
          }
          const child = join(dir, entry.name);
          if (entry.name === name) found.push(child);
          next.push(child);
        }
      }
      level = next;
    }
    // Only hits are remembered: a folder created after a miss must still be found.
    if (found.length > 0) this.#folders.set(name, found);
    return found;
  }
}

async function matches(path: string, claim: FileClaim): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  return Boolean(info?.isFile() && sameFile(info, claim));
}
