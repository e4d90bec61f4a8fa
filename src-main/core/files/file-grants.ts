import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';

import { CourierError } from '../errors.js';

/** A local file the user handed to Courier (dropped, picked or named on the command line). */
export interface GrantedPath {
  id: string;
  path: string;
  size: number;
  mtimeMs: number;
}

/** What the renderer says about a file; main checks it against the disk before trusting it. */
export interface FileClaim {
  size: number;
  lastModified: number;
  /** The content proof (`core/model/file-proof.ts`) of the `File` the renderer holds. */
  proof?: string;
}

/**
 * Main touches only files the user granted: this registry is the list. Ids are derived from the
 * absolute path so the same file granted twice is one entry, and stay stable across restarts.
 */
export class FileGrants {
  readonly #byId = new Map<string, GrantedPath>();
  /** Files being granted again in the background (a reopened library's checks). */
  readonly #checks = new Set<Promise<void>>();

  /**
   * Grants a file main found itself (from the OS or a saved session) after checking it exists,
   * is a regular file and matches the claim's size and modification time when there is one.
   */
  async grant(path: string, claim?: FileClaim): Promise<GrantedPath> {
    if (!isAbsolute(path)) throw new CourierError('not_granted', `Not an absolute path: ${path}`);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw new CourierError('not_found', `No such file: ${path}`);
    if (claim && !sameFile(info, claim)) {
      throw new CourierError('changed', `The file changed since it was picked: ${path}`);
    }
    return this.#add(path, info);
  }

  /**
   * Grants a file a page picked, found at `path` as the page described it (`inspectFile`: size,
   * date, where it is) and read for its content proof, when that proof is the page's.
   */
  admit(
    path: string,
    found: { size: number; mtimeMs: number; proof: string | null },
    proof: string,
  ): GrantedPath {
    if (!isAbsolute(path)) throw new CourierError('not_granted', `Not an absolute path: ${path}`);
    if (found.proof !== proof) {
      throw new CourierError(
        'proof_mismatch',
        `The content of ${path} is not the content of the file picked in the page.`,
      );
    }
    return this.#add(path, found);
  }

  #add(path: string, info: { size: number; mtimeMs: number }): GrantedPath {
    const granted: GrantedPath = { id: fileId(path), path, size: info.size, mtimeMs: info.mtimeMs };
    this.#byId.set(granted.id, granted);
    return granted;
  }

  /** The granted file with this id; an id that was never granted is refused. */
  get(id: string): GrantedPath {
    const granted = this.#byId.get(id);
    if (!granted) throw new CourierError('not_granted', `File ${id} was not granted by the user.`);
    return granted;
  }

  /**
   * The granted file with this id once the files being granted again in the background are
   * checked: what reads a file by id asks this, rather than refusing a file whose check has
   * not come yet.
   */
  async whenGranted(id: string): Promise<GrantedPath> {
    await this.checked();
    return this.get(id);
  }

  /** Counts `work` (files being granted again in the background) until it settles. */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#checks.add(settled);
    void settled.then(() => this.#checks.delete(settled));
  }

  /** Resolves once the files being granted again in the background are checked. */
  async checked(): Promise<void> {
    while (this.#checks.size > 0) await Promise.all(this.#checks);
  }

  get size(): number {
    return this.#byId.size;
  }
}

/** The stable id of a local file, derived from its absolute path. */
export function fileId(path: string): string {
  return createHash('sha256').update(path.normalize('NFC')).digest('hex').slice(0, 24);
}

/** Whether a file on disk is the one the renderer describes (size, and mtime to the ms). */
export function sameFile(info: { size: number; mtimeMs: number }, claim: FileClaim): boolean {
  return info.size === claim.size && Math.abs(Math.trunc(info.mtimeMs) - claim.lastModified) <= 1;
}
