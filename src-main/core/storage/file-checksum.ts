import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';

/**
 * MD5 runs in a worker thread: hashing an 8–64 MiB part on the main thread would block the
 * event loop for tens of milliseconds each time. Buffers are transferred, not copied, both ways.
 * The worker is inline source so it survives bundling (esbuild, Electron) unchanged.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const sessions = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'digest') {
    const view = new Uint8Array(m.buffer, m.offset, m.length);
    const md5 = createHash('md5').update(view).digest();
    parentPort.postMessage({ id: m.id, md5, buffer: m.buffer }, [m.buffer]);
  } else if (m.op === 'update') {
    let h = sessions.get(m.session);
    if (!h) { h = createHash('md5'); sessions.set(m.session, h); }
    const view = new Uint8Array(m.buffer, m.offset, m.length);
    h.update(view);
    const md5 = createHash('md5').update(view).digest();
    parentPort.postMessage({ id: m.id, md5, buffer: m.buffer }, [m.buffer]);
  } else if (m.op === 'final') {
    const h = sessions.get(m.session) ?? createHash('md5');
    sessions.delete(m.session);
    parentPort.postMessage({ id: m.id, md5: h.digest() });
  }
});
`;

interface Pending {
  resolve: (value: { md5: Buffer; buffer?: ArrayBuffer }) => void;
  reject: (error: unknown) => void;
}

/** A small pool of hashing threads; create one per upload run and `close()` it after. */
export class HashPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private turn = 0;

  constructor(size = 1) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.on('message', (m: { id: number; md5: Uint8Array; buffer?: ArrayBuffer }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        p?.resolve({ md5: Buffer.from(m.md5), buffer: m.buffer });
      });
      worker.on('error', (error) => {
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
      });
      this.workers.push(worker);
    }
  }

  /**
   * MD5 of `view`. The view's ArrayBuffer is transferred to the worker and back: the returned
   * Buffer views the same bytes, and `view` must not be used afterwards.
   */
  async md5(view: Buffer): Promise<{ md5: Buffer; data: Buffer }> {
    // Read before the transfer: it detaches the ArrayBuffer and zeroes the view's length.
    const { byteOffset: offset, length } = view;
    const { md5, buffer } = await this.post({ op: 'digest', buffer: view.buffer, offset, length }, [
      view.buffer as ArrayBuffer,
    ]);
    return { md5, data: Buffer.from(buffer!, offset, length) };
  }

  /** Feeds `view` into a whole-file session and returns the chunk's own MD5 (same transfer rule). */
  async update(session: number, view: Buffer): Promise<{ md5: Buffer; data: Buffer }> {
    const worker = session % this.workers.length;
    const { byteOffset: offset, length } = view;
    const { md5, buffer } = await this.post(
      { op: 'update', session, buffer: view.buffer, offset, length },
      [view.buffer as ArrayBuffer],
      worker,
    );
    return { md5, data: Buffer.from(buffer!, offset, length) };
  }

  /** Ends a whole-file session and returns its MD5. */
  async final(session: number): Promise<Buffer> {
    return (await this.post({ op: 'final', session }, [], session % this.workers.length)).md5;
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
    transfer: ArrayBuffer[],
    worker = this.turn++ % this.workers.length,
  ): Promise<{ md5: Buffer; buffer?: ArrayBuffer }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[worker]!.postMessage({ ...message, id }, transfer);
    });
  }
}

/** A buffer that owns its whole ArrayBuffer, so it can be transferred to a hashing worker. */
export function transferableBuffer(size: number): Buffer {
  return Buffer.from(new ArrayBuffer(size));
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
    let buffer = transferableBuffer(Math.min(partSize, Math.max(size, 1)));
    for (let position = 0; position < size; position += partSize) {
      const length = Math.min(partSize, size - position);
      await readFully(handle, buffer, position, length);
      const { md5, data } = await pool.update(session, buffer.subarray(0, length));
      partDigests.push(md5);
      buffer = Buffer.from(data.buffer);
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
