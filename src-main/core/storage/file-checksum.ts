import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';

/**
 * MD5 runs in a worker thread: hashing an 8–64 MiB part on the main thread would block the
 * event loop for tens of milliseconds each time. Part buffers live in SharedArrayBuffers, so the
 * worker reads the same memory without a copy or a transfer (transfers re-register external
 * memory with V8 on every hop and set off full garbage collections that stall the loop).
 * The worker is inline source so it survives bundling (esbuild, Electron) unchanged.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { open } = require('node:fs/promises');
const sessions = new Map();
async function hashFile(m) {
  const h = createHash('md5');
  const handle = await open(m.path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let at = m.start, end = m.start + m.length; at < end; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - at), at);
      if (bytesRead === 0) throw new Error('The file became shorter while it was being uploaded.');
      h.update(buffer.subarray(0, bytesRead));
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return h.digest();
}
parentPort.on('message', (m) => {
  if (m.op === 'file') {
    hashFile(m).then(
      (md5) => parentPort.postMessage({ id: m.id, md5 }),
      (e) => parentPort.postMessage({ id: m.id, error: { message: e.message, code: e.code } }),
    );
    return;
  }
  if (m.op === 'final') {
    const h = sessions.get(m.session) ?? createHash('md5');
    sessions.delete(m.session);
    parentPort.postMessage({ id: m.id, md5: h.digest() });
    return;
  }
  const view = new Uint8Array(m.buffer, m.offset, m.length);
  if (m.op === 'update') {
    let h = sessions.get(m.session);
    if (!h) { h = createHash('md5'); sessions.set(m.session, h); }
    h.update(view);
  }
  parentPort.postMessage({ id: m.id, md5: createHash('md5').update(view).digest() });
});
`;

interface WorkerReply {
  id: number;
  md5?: Uint8Array;
  error?: { message: string; code?: string };
}

interface Pending {
  resolve: (md5: Buffer) => void;
  reject: (error: unknown) => void;
}

/** A buffer of `size` bytes over a SharedArrayBuffer, as the hashing worker needs. */
export function sharedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(Math.max(size, 1)), 0, size);
}

function shared(view: Buffer): SharedArrayBuffer {
  if (!(view.buffer instanceof SharedArrayBuffer)) {
    throw new TypeError('HashPool hashes buffers over a SharedArrayBuffer (see sharedBuffer()).');
  }
  return view.buffer;
}

/**
 * A small pool of hashing threads; create one per upload run and `close()` it after. The threads
 * start with the first hash: a run of small planned files never needs one, and each idle thread
 * held some 9 MiB through a whole delivery.
 */
export class HashPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private turn = 0;

  constructor(private readonly size = 1) {}

  private start(): void {
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.on('message', (m: WorkerReply) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error) p?.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
        else p?.resolve(Buffer.from(m.md5!));
      });
      worker.on('error', (error) => {
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
      });
      this.workers.push(worker);
    }
  }

  /** MD5 of `view`, which must not change until the promise settles. */
  md5(view: Buffer): Promise<Buffer> {
    return this.post({
      op: 'digest',
      buffer: shared(view),
      offset: view.byteOffset,
      length: view.length,
    });
  }

  /**
   * MD5 of `length` bytes of the file at `path` from `start`, read by the worker itself: whole
   * files sent in one streamed PUT are never held in memory, and the main thread never sees them.
   */
  fileMd5(path: string, start: number, length: number): Promise<Buffer> {
    return this.post({ op: 'file', path, start, length });
  }

  /** Feeds `view` into a whole-file session and returns the chunk's own MD5. */
  update(session: number, view: Buffer): Promise<Buffer> {
    const message = {
      op: 'update',
      session,
      buffer: shared(view),
      offset: view.byteOffset,
      length: view.length,
    };
    return this.post(message, session % this.size);
  }

  /** Ends a whole-file session and returns its MD5. */
  final(session: number): Promise<Buffer> {
    return this.post({ op: 'final', session }, session % this.size);
  }

  /** A fresh session id for `update()` / `final()`. */
  session(): number {
    return this.nextId++;
  }

  /** Stops the threads. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private post(
    message: Record<string, unknown>,
    worker = this.turn++ % this.size,
  ): Promise<Buffer> {
    if (this.workers.length === 0) this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[worker]!.postMessage({ ...message, id });
    });
  }
}

/** Reads exactly `length` bytes at `position` of an open file into `target`. */
export async function readFully(
  handle: import('node:fs/promises').FileHandle,
  target: Buffer,
  position: number,
  length: number,
): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(target, done, length - done, position + done);
    if (bytesRead === 0) throw new Error('The file became shorter while it was being uploaded.');
    done += bytesRead;
  }
}

/**
 * The ETags S3-protocol servers give a file of `size` bytes: the plain MD5 (single PUT, and
 * s3rver for multipart) and the multipart form `md5(concat(part md5s))-N` for `partSize`.
 */
export async function expectedEtags(
  path: string,
  size: number,
  partSize: number,
  pool: HashPool,
): Promise<string[]> {
  const handle = await open(path, 'r');
  const session = pool.session();
  const partDigests: Buffer[] = [];
  try {
    const buffer = sharedBuffer(Math.min(partSize, size));
    for (let position = 0; position < size; position += partSize) {
      const length = Math.min(partSize, size - position);
      await readFully(handle, buffer, position, length);
      partDigests.push(await pool.update(session, buffer.subarray(0, length)));
    }
  } finally {
    await handle.close();
  }
  const whole = (await pool.final(session)).toString('hex');
  const etags = [whole];
  if (partDigests.length > 1) {
    const { createHash } = await import('node:crypto');
    const combined = createHash('md5').update(Buffer.concat(partDigests)).digest('hex');
    etags.push(`${combined}-${partDigests.length}`);
  }
  return etags;
}
