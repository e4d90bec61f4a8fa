import { readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** How far below a root, and through how many folders, a picked folder is looked for. */
const MAX_DEPTH = 4;
const MAX_FOLDERS_VISITED = 20_000;
/** Most file names one walk of the roots remembers (for files picked one by one). */
const MAX_FILES_INDEXED = 200_000;
/** How long one walk's file names serve: a pick of many files asks for each within moments. */
const INDEX_TTL_MS = 10_000;

/**
 * A browser does not reveal where a picked or dropped file lives, only its path relative to the
 * picked folder (`Album/01.flac`). The browser host finds it again under the folders it was told
 * it may serve (`--root`): the candidates are the places at that relative path, directly under a
 * root or under a folder of the picked folder's name; `inspectFile` then keeps those whose size
 * and mtime match what the browser saw and whose real path, links resolved, stays below a real
 * root (`realRoots`) with no hidden folder on the way, and the grant checks each one's content
 * proof. A file picked on its own ("Add files…") comes with its bare name: it is looked for
 * under the roots' visible folders too. Hidden files (any segment starting with '.') are never
 * candidates. Electron never needs this: its preload knows each file's real path.
 */
export class PickedFileFinder {
  readonly #roots: string[];
  #realRoots: Promise<string[]> | undefined;
  /**
   * Where a picked top-level folder name was found, or is being looked for: the files of one
   * picked folder are asked for many at a time, and share one walk of the roots.
   */
  readonly #folders = new Map<string, Promise<string[]>>();
  /** The last walk's visible files by name, and when it started. */
  #files: { at: number; byName: Promise<Map<string, string[]>> } | undefined;

  constructor(roots: string[]) {
    this.#roots = roots;
  }

  /** The places on disk the browser may be describing, best first. */
  async candidates(relativePath: string): Promise<string[]> {
    const segments = pickedSegments(relativePath);
    if (!segments) return [];
    const candidates = this.#roots.map((root) => join(root, ...segments));
    if (segments.length >= 2) {
      const [top, ...rest] = segments as [string, ...string[]];
      for (const folder of await this.#foldersNamed(top)) candidates.push(join(folder, ...rest));
    } else {
      candidates.push(...(await this.#filesNamed(segments[0]!)));
    }
    return [...new Set(candidates)];
  }

  /** The roots, links resolved: a candidate's real path must stay below one of them. */
  realRoots(): Promise<string[]> {
    this.#realRoots ??= Promise.all(this.#roots.map((root) => realpath(root).catch(() => root)));
    return this.#realRoots;
  }

  /** The visible files of this name below the roots (a few seconds' old walk at most). */
  async #filesNamed(name: string): Promise<string[]> {
    const now = Date.now();
    if (!this.#files || now - this.#files.at > INDEX_TTL_MS) {
      this.#files = { at: now, byName: this.#indexFiles() };
    }
    return (await this.#files.byName).get(name) ?? [];
  }

  async #indexFiles(): Promise<Map<string, string[]>> {
    const byName = new Map<string, string[]>();
    let visited = 0;
    let indexed = 0;
    let level = this.#roots.slice();
    for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
      const next: string[] = [];
      for (const dir of level) {
        if (++visited > MAX_FOLDERS_VISITED) break;
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          if (entry.name.startsWith('.')) continue;
          const child = join(dir, entry.name);
          if (entry.isDirectory()) {
            if (entry.name !== 'node_modules') next.push(child);
          } else if (entry.isFile() && indexed < MAX_FILES_INDEXED) {
            indexed++;
            byName.set(entry.name, [...(byName.get(entry.name) ?? []), child]);
          }
        }
      }
      level = next;
    }
    return byName;
  }

  #foldersNamed(name: string): Promise<string[]> {
    let walk = this.#folders.get(name);
    if (!walk) {
      const started = this.#walkForFolders(name);
      // Only hits are remembered: a folder created after a miss must still be found.
      const forget = () => {
        if (this.#folders.get(name) === started) this.#folders.delete(name);
      };
      void started.then((found) => found.length === 0 && forget(), forget);
      this.#folders.set(name, started);
      walk = started;
    }
    return walk;
  }

  async #walkForFolders(name: string): Promise<string[]> {
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
    return found;
  }
}

/**
 * The segments of a relative path a page may ask for, or null: no empty, `.` or `..` segment,
 * no separator of the OS inside one, and nothing hidden (a segment starting with '.').
 */
export function pickedSegments(relativePath: string): string[] | null {
  const segments = relativePath.split('/');
  const refused = (s: string) =>
    s === '' || s.startsWith('.') || s.includes(sep) || s.includes('\0');
  return segments.some(refused) ? null : segments;
}

/** Whether `path` lies below `root` with no segment on the way starting with '.'. */
export function isVisibleBelow(root: string, path: string): boolean {
  const rest = relative(root, path);
  if (rest === '' || isAbsolute(rest)) return false;
  return rest.split(sep).every((s) => s !== '' && !s.startsWith('.'));
}
