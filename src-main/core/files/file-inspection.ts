/**
 * Checks where a picked file may be on disk against what the page says of it: a regular file of
 * the size and date the page saw, whose real path stays where the door allows, and whose
 * content proof (`model/file-proof.ts`) is computed for the grant to compare. A drop of 100,000
 * files asks this 100,000 times: with the promise API each file took seven trips through the
 * thread pool (0.3–0.4 ms of CPU a file), so the calls here are synchronous (0.05–0.08 ms) and
 * run on a worker thread (`inspect-worker.ts`), never blocking main on a slow disk.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { isAbsolute } from 'node:path';

import { proofMessage, proofRanges } from '../model/file-proof.js';
import { type ChunkWorker, startWorkers, stopWorkers } from '../tags/worker-lanes.js';
import { type FileClaim, sameFile } from './file-grants.js';
import { isVisibleBelow } from './find-picked-file.js';

/** One place a picked file may be. */
export interface Inspection {
  path: string;
  claim: FileClaim;
  /**
   * The folders the file's real path (links resolved) must lie below, with no hidden folder on
   * the way; absent, anywhere (the door knows the path from the OS).
   */
  within?: readonly string[];
}

/**
 * What is there: a matching file and its proof (null when it could not be read), or why not.
 * Where the door confines files (`within`), every miss says only 'not found on disk': a page
 * guessing paths learns nothing of what is there.
 */
export type Inspected =
  | { path: string; found: true; size: number; mtimeMs: number; proof: string | null }
  | { path: string; found: false; reason: string };

/**
 * Inspects one place. A file is read only once it is known to be a regular file of the claimed
 * size and date inside `within`; it is opened without blocking (a file swapped for a pipe since
 * is not waited on) and checked again through the open handle.
 */
export function inspectFile({ path, claim, within }: Inspection): Inspected {
  const missing = (reason: string) =>
    ({ path, found: false, reason: within ? 'not found on disk' : reason }) as const;
  if (!isAbsolute(path)) return missing(`Not an absolute path: ${path}`);
  let size: number;
  let mtimeMs: number;
  try {
    const info = statSync(path);
    if (!info.isFile()) return missing(`No such file: ${path}`);
    if (!sameFile(info, claim)) return missing(`The file changed since it was picked: ${path}`);
    if (within) {
      const real = realpathSync.native(path);
      if (!within.some((root) => isVisibleBelow(root, real))) return missing('');
    }
    ({ size, mtimeMs } = info);
  } catch {
    return missing(`No such file: ${path}`);
  }
  return { path, found: true, size, mtimeMs, proof: proofOfPath(path, size) };
}

/** The content proof of the file at `path`, `size` bytes long; null when it can't be read so. */
export function proofOfPath(path: string, size: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size !== size) return null;
    const parts = proofRanges(size).map(([start, end]) => {
      const part = Buffer.allocUnsafe(end - start);
      let filled = 0;
      while (filled < part.length) {
        const read = readSync(fd, part, filled, part.length - filled, start + filled);
        if (read === 0) break;
        filled += read;
      }
      return part.subarray(0, filled);
    });
    return createHash('sha256').update(proofMessage(size, parts)).digest('hex');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The worker thread an inspector inspects on. */
export type InspectWorker = ChunkWorker<Inspection[], Inspected[], never>;

/** How long an idle inspector keeps its worker thread. */
const IDLE_MS = 30_000;

/**
 * Inspects places on a worker thread, started when first asked and stopped when idle; on this
 * thread when no worker can start or the worker fails.
 */
export class FileInspector {
  #worker: InspectWorker | null | undefined;
  #busy = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #startWorker: () => InspectWorker | null;

  /** `startWorker` starts the worker thread (null when it cannot start). */
  constructor(
    startWorker: () => InspectWorker | null = () =>
      startWorkers<Inspection[], Inspected[]>('inspect-worker', 1)[0] ?? null,
  ) {
    this.#startWorker = startWorker;
  }

  /** What is at each place, in the order asked. */
  async inspect(places: readonly Inspection[]): Promise<Inspected[]> {
    if (places.length === 0) return [];
    const worker = this.#start();
    if (worker) {
      this.#busy++;
      worker.ref();
      try {
        return await worker.read(places.slice(), () => undefined);
      } catch {
        // A worker that failed is not started again: this thread inspects from here on.
        if (this.#worker === worker) {
          stopWorkers([worker]);
          this.#worker = null;
        }
      } finally {
        if (--this.#busy === 0) this.#rest();
      }
    }
    return places.map(inspectFile);
  }

  #start(): InspectWorker | null {
    if (this.#worker === undefined) this.#worker = this.#startWorker();
    clearTimeout(this.#idle);
    return this.#worker;
  }

  /** Lets the process exit while the worker waits, and stops it after a while unused. */
  #rest(): void {
    const worker = this.#worker;
    if (!worker) return;
    worker.unref();
    this.#idle = setTimeout(() => {
      if (this.#busy > 0 || this.#worker !== worker) return;
      stopWorkers([worker]);
      this.#worker = undefined;
    }, IDLE_MS);
    this.#idle.unref();
  }
}
