/**
 * Work on many files shared between this thread and worker threads (`scan-folder.ts` reads tags,
 * `duplicates.ts` hashes audio; `library-session.ts` folds a library on one; `file-inspection.ts`
 * checks picked files on one): the work comes in chunks, each thread takes the next chunk when
 * it is done with its last, and a worker that fails leaves its chunk, and the rest, to this
 * thread. A worker is a module beside this one that calls `serveChunks`: `<name>.ts` run from the
 * sources, `<name>.js` beside the CLI's bundle (scripts/courier.mjs builds each one there).
 */
import { parentPort, Worker } from 'node:worker_threads';

/** The worker modules, each built beside the CLI's bundle and the app's. */
export type WorkerName = 'scan-worker' | 'duplicates-worker' | 'fold-worker' | 'inspect-worker';

/** Where each worker's source is, from this module's folder. */
const SOURCES: Record<WorkerName, string> = {
  'scan-worker': './scan-worker.ts',
  'duplicates-worker': './duplicates-worker.ts',
  'fold-worker': '../library/fold-worker.ts',
  'inspect-worker': '../files/inspect-worker.ts',
};

/** Reads one chunk; `progress` reports on the way (bytes hashed, say). */
export type ChunkReader<I, O, P> = (input: I, progress: (p: P) => void) => Promise<O>;

type Request<I> = { id: number; input: I };
type Reply<O, P> =
  { id: number; output: O } | { id: number; progress: P } | { id: number; error: string };

/**
 * A worker thread's side: answers each chunk the main thread sends with what `read` gives, one
 * chunk at a time in the order sent (the next one waits here, ready, while this one is read).
 */
export function serveChunks<I, O, P = never>(read: ChunkReader<I, O, P>): void {
  const port = parentPort;
  if (!port) return;
  const post = (reply: Reply<O, P>) => port.postMessage(reply);
  let last: Promise<void> = Promise.resolve();
  port.on('message', ({ id, input }: Request<I>) => {
    last = last.then(() =>
      read(input, (progress) => post({ id, progress })).then(
        (output) => post({ id, output }),
        (error: unknown) =>
          post({ id, error: error instanceof Error ? error.message : String(error) }),
      ),
    );
  });
}

/** A worker thread reading chunks; its failure rejects its pending chunks. */
export interface ChunkWorker<I, O, P> {
  read: ChunkReader<I, O, P>;
  stop(): void;
  /** Whether the thread keeps the process running (it does when started). */
  ref(): void;
  unref(): void;
}

function createWorker(name: WorkerName): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, import.meta.url));
  // Run from sources, a worker must register tsx itself: Node 20 gives workers no loader hooks.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL(SOURCES[name], import.meta.url).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); })`, {
    eval: true,
  });
}

function startWorker<I, O, P>(name: WorkerName): ChunkWorker<I, O, P> | null {
  let worker: Worker;
  try {
    worker = createWorker(name);
  } catch {
    return null;
  }
  let nextId = 0;
  let failed: unknown = null;
  const pending = new Map<
    number,
    { resolve: (o: O) => void; reject: (e: unknown) => void; progress: (p: P) => void }
  >();
  worker.on('message', (reply: Reply<O, P>) => {
    const p = pending.get(reply.id);
    if (!p) return;
    if ('progress' in reply) return p.progress(reply.progress);
    pending.delete(reply.id);
    if ('output' in reply) p.resolve(reply.output);
    else p.reject(new Error(reply.error));
  });
  const fail = (error: unknown) => {
    failed ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`${name} exited with code ${code}`)));
  return {
    read: (input, progress) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed);
        const id = nextId++;
        pending.set(id, { resolve, reject, progress });
        const request: Request<I> = { id, input };
        worker.postMessage(request);
      }),
    stop: () => void worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}

/** Starts up to `count` workers running `name` (fewer when some cannot start). */
export function startWorkers<I, O, P = never>(
  name: WorkerName,
  count: number,
): ChunkWorker<I, O, P>[] {
  return Array.from({ length: Math.max(0, count) }, () => startWorker<I, O, P>(name)).filter(
    (w) => w !== null,
  );
}

/** Stops workers started by `startWorkers`. */
export function stopWorkers(workers: readonly { stop(): void }[]): void {
  for (const w of workers) w.stop();
}

/** How `runChunks` reads its chunks. */
export interface ChunkRun<I, O, P> {
  chunks: readonly I[];
  /** Reads a chunk on this thread (it should stop early once `signal` is aborted). */
  local: ChunkReader<I, O, P>;
  workers: ChunkWorker<I, O, P>[];
  /**
   * Whether this thread reads chunks beside the workers (default true); when false it reads only
   * those of workers that failed, or all of them when there are no workers.
   */
  mainLane?: boolean;
  signal?: AbortSignal;
  /** Called as each chunk is read, saying by which thread (for progress and tests). */
  onChunk?: (output: O, by: 'main' | 'worker') => void;
  onProgress?: (progress: P) => void;
}

/**
 * Reads every chunk on this thread and on `workers`; outputs in chunk order. Once `signal` is
 * aborted no chunk is started and chunks in workers are not waited for: their outputs are missing.
 */
export async function runChunks<I, O, P = never>(
  run: ChunkRun<I, O, P>,
): Promise<(O | undefined)[]> {
  const { chunks, signal } = run;
  const progress = (p: P) => run.onProgress?.(p);
  const outputs: (O | undefined)[] = new Array(chunks.length);
  const stopped = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  stopped.catch(() => undefined);
  let next = 0;
  let localLanes = 0;
  const lane = async (read: ChunkReader<I, O, P>, by: 'main' | 'worker') => {
    if (by === 'main') localLanes++;
    while (next < chunks.length && !signal?.aborted) {
      const i = next++;
      try {
        outputs[i] = await Promise.race([read(chunks[i]!, progress), stopped]);
        run.onChunk?.(outputs[i]!, by);
      } catch (error) {
        if (signal?.aborted) return;
        if (by === 'main') throw error;
        // A worker that failed leaves its chunk, and the rest, to this thread: to the lane of
        // this thread when there is one, else this lane goes on reading here.
        outputs[i] = await run.local(chunks[i]!, progress);
        run.onChunk?.(outputs[i]!, 'main');
        if (localLanes > 0) return;
        localLanes++;
        read = run.local;
        by = 'main';
      }
    }
  };
  // Two lanes a worker: it always holds its next chunk, so it never waits for this thread to
  // take its answer and send another (this thread reads too, and answers only between chunks).
  const lanes = run.workers.flatMap((w) => [lane(w.read, 'worker'), lane(w.read, 'worker')]);
  if (run.mainLane !== false || run.workers.length === 0) lanes.push(lane(run.local, 'main'));
  await Promise.all(lanes);
  return outputs;
}
