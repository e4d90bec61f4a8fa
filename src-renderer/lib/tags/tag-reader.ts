/**
 * A small pool of tags workers. Files are handed out a few per worker at a time so a drop of
 * 10,000 files never queues 10,000 Blobs in one worker; results come back in completion order.
 * Both ways, messages carry batches: one message per file would cost the page a task each. The
 * worker reads a batch's files with one round trip to the browser process (`readGroup`), not
 * one or more per file.
 */
import { type FileReadResult, readFailure } from '../../../src-main/core/model/read-result.js';
import type { ProvenFile } from '../../../src-main/ipc/contract.js';
import type { GroupedFile } from './read-file.js';

/** What the page sends a worker (in batches): the file and its delivery-relative path. */
export interface TagRequest {
  key: string;
  file: File;
  relativePath: string;
  /** Also compute the file's content proof, from the same bytes (files not granted yet). */
  prove?: boolean;
}

/** What the page sends a worker: the files, and what each one is (the same order). */
export interface TagBatch {
  blobs: File[];
  files: Array<GroupedFile & { key: string }>;
}

/** What a worker answers for one file (in batches). */
export interface TagResponse {
  key: string;
  result: FileReadResult;
  /** The proof, size and date, when asked and the file could be read. */
  proven?: ProvenFile;
}

/** Reads tags of files; the library state depends on this interface only (tests fake it). */
export interface TagReader {
  /**
   * Reads every file, calling `onResult` as each one finishes; resolves when all are done. A
   * file asked to `prove` comes with its proof when the reader computes one (a reader may not:
   * the grant then computes it).
   */
  read(
    files: readonly TagRequest[],
    onResult: (key: string, result: FileReadResult, proven?: ProvenFile) => void,
  ): Promise<void>;
}

/**
 * Files in flight per worker. A worker reads them concurrently, so one file's parsing fills
 * another's wait for its bytes from the browser process. A worker gets more once half are done,
 * as one group (one read of the browser process). 48 rather than 16: a 10,000-file add read its
 * tags 8 % sooner (9.8 and 10.0 s against 10.8 and 10.8 s, taking turns), each group costing the
 * browser process a Blob and a read whatever its size; at most 48 × 320 KiB in memory a worker.
 */
const perWorker = 48;

/** The worker-pool reader used by the app. */
export class WorkerTagReader implements TagReader {
  readonly #workers: Worker[] = [];
  /** One read at a time: workers answer by message, and two reads would share the listeners. */
  #queue: Promise<void> = Promise.resolve();

  constructor(size = Math.max(2, Math.min(4, navigator.hardwareConcurrency || 2))) {
    for (let i = 0; i < size; i++) {
      this.#workers.push(
        new Worker(new URL('./tag-worker.ts', import.meta.url), {
          type: 'module',
          name: `tags-${i}`,
        }),
      );
    }
  }

  read(
    files: readonly TagRequest[],
    onResult: (key: string, result: FileReadResult, proven?: ProvenFile) => void,
  ): Promise<void> {
    const run = this.#queue.then(() => this.#readNow(files, onResult));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #readNow(
    files: readonly TagRequest[],
    onResult: (key: string, result: FileReadResult, proven?: ProvenFile) => void,
  ): Promise<void> {
    let next = 0;
    await Promise.all(
      this.#workers.map(
        (worker) =>
          new Promise<void>((done) => {
            const inFlight = new Map<string, string>();
            const pump = () => {
              if (inFlight.size <= perWorker / 2 && next < files.length) {
                const batch: TagRequest[] = [];
                while (inFlight.size < perWorker && next < files.length) {
                  const request = files[next++]!;
                  inFlight.set(request.key, request.relativePath);
                  batch.push(request);
                }
                worker.postMessage(toBatch(batch));
              }
              if (inFlight.size === 0) {
                worker.removeEventListener('message', onMessage);
                worker.removeEventListener('error', onError);
                done();
              }
            };
            const onMessage = (event: MessageEvent<TagResponse[]>) => {
              for (const { key, result, proven } of event.data) {
                inFlight.delete(key);
                onResult(key, result, proven);
              }
              pump();
            };
            const onError = (event: ErrorEvent) => {
              // A worker that dies takes its files with it: report them rather than hang.
              event.preventDefault();
              for (const [key, path] of inFlight) {
                onResult(
                  key,
                  readFailure(path, new Error(event.message || 'the tags worker failed')),
                );
              }
              inFlight.clear();
              worker.removeEventListener('message', onMessage);
              worker.removeEventListener('error', onError);
              done();
            };
            worker.addEventListener('message', onMessage);
            worker.addEventListener('error', onError);
            pump();
          }),
      ),
    );
  }
}

/**
 * The worker's message for `requests`. Their sizes and dates were asked before (`askSizes` in
 * the library state), so this costs the page no round trip to the browser process per file. The
 * worker, not the page, joins the files into one Blob: making a Blob waits for the browser
 * process, which is busy reading, and the page must not (one per batch held it 30 s over a
 * 100,000-file add).
 */
function toBatch(requests: readonly TagRequest[]): TagBatch {
  return {
    blobs: requests.map(({ file }) => file),
    files: requests.map(({ key, file, relativePath, prove }) => ({
      key,
      relativePath,
      size: file.size,
      lastModified: file.lastModified,
      type: file.type,
      prove: prove === true,
    })),
  };
}
