import { sleep } from './retry.js';

/**
 * A token bucket of bytes per second shared by every transfer (the optional bandwidth limit).
 * Bursts are capped at one second's worth so a long idle spell doesn't allow a flood.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly bytesPerSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(bytesPerSecond > 0)) throw new RangeError('The bandwidth limit must be positive.');
    this.tokens = bytesPerSecond;
    this.last = now();
  }

  /** Resolves once `bytes` may be sent; callers are served in order. */
  take(bytes: number, signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(async () => {
      this.refill();
      this.tokens -= bytes;
      if (this.tokens < 0) await sleep((-this.tokens / this.bytesPerSecond) * 1000, signal);
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(
      this.bytesPerSecond,
      this.tokens + ((now - this.last) / 1000) * this.bytesPerSecond,
    );
    this.last = now;
  }
}
