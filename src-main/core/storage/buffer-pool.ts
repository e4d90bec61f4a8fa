/**
 * Reuses part-sized buffers between transfers. Allocating (and zero-filling) a fresh 8–64 MiB
 * buffer per part costs CPU and makes V8 run full garbage collections that stall the event
 * loop; a pool of at most `limit` idle buffers of the current capacity avoids both. Buffers own
 * their whole ArrayBuffer so they can be transferred to the hashing worker and back.
 */
export class BufferPool {
  private capacity = 0;
  private idle: ArrayBuffer[] = [];

  constructor(private readonly limit: number) {}

  /** A buffer of exactly `length` bytes backed by a pooled ArrayBuffer of `capacity` bytes. */
  take(length: number, capacity: number): Buffer {
    if (capacity !== this.capacity) {
      // A file with another part size: drop the old buffers so idle memory stays one size deep.
      this.capacity = capacity;
      this.idle = [];
    }
    const backing = this.idle.pop() ?? new ArrayBuffer(Math.max(capacity, length));
    return Buffer.from(backing, 0, length);
  }

  /** Returns a buffer's ArrayBuffer to the pool (ignored when full or of another capacity). */
  give(buffer: Buffer): void {
    const backing = buffer.buffer as ArrayBuffer;
    if (
      backing.byteLength === this.capacity &&
      this.idle.length < this.limit &&
      !this.idle.includes(backing)
    ) {
      this.idle.push(backing);
    }
  }
}
