/**
 * Reuses part-sized buffers between transfers. Allocating (and zero-filling) a fresh 8–64 MiB
 * buffer per part costs CPU and makes V8 run full garbage collections that stall the event
 * loop; a pool of at most `limit` idle buffers of the current capacity avoids both. Buffers are
 * SharedArrayBuffers so the hashing worker reads them in place.
 */
export class BufferPool {
  private capacity = 0;
  private idle: SharedArrayBuffer[] = [];

  constructor(private readonly limit: number) {}

  /** A buffer of exactly `length` bytes backed by a pooled ArrayBuffer of `capacity` bytes. */
  take(length: number, capacity: number): Buffer {
    if (capacity !== this.capacity) {
      // A file with another part size: drop the old buffers so idle memory stays one size deep.
      this.capacity = capacity;
      this.idle = [];
    }
    const backing = this.idle.pop() ?? new SharedArrayBuffer(Math.max(capacity, length, 1));
    return Buffer.from(backing, 0, length);
  }

  /** Lets the idle buffers go (the transfers are over): the pool holds nothing until the next `take`. */
  clear(): void {
    this.idle = [];
  }

  /** Returns a buffer's ArrayBuffer to the pool (ignored when full or of another capacity). */
  give(buffer: Buffer): void {
    const backing = buffer.buffer;
    if (!(backing instanceof SharedArrayBuffer)) return;
    if (
      backing.byteLength === this.capacity &&
      this.idle.length < this.limit &&
      !this.idle.includes(backing)
    ) {
      this.idle.push(backing);
    }
  }
}
