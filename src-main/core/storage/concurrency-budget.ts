/**
 * The one budget of concurrent transfers shared by every file and part. It halves on SlowDown /
 * 429 (at most once per cool-down, so a burst of throttled replies counts once) and climbs back
 * by one slot per `recoverAfter` successes: additive increase, multiplicative decrease.
 */
export class ConcurrencyBudget {
  private current: number;
  private inUse = 0;
  private successes = 0;
  private lastDecrease = -Infinity;
  private readonly waiters: Array<() => void> = [];

  constructor(
    readonly max: number,
    private readonly options: {
      recoverAfter?: number;
      coolDownMs?: number;
      now?: () => number;
    } = {},
  ) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError('Concurrency must be a whole number ≥ 1.');
    this.current = max;
  }

  /** The number of transfers allowed at once right now. */
  get limit(): number {
    return this.current;
  }

  /** The number of transfers holding a slot. */
  get active(): number {
    return this.inUse;
  }

  /** Waits for a free slot; the caller must `release()` it exactly once. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.inUse < this.current && this.waiters.length === 0) {
      this.inUse++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(grant);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  /** Gives a slot back and hands it to the next waiter if the limit allows. */
  release(): void {
    this.inUse--;
    this.drain();
  }

  /** Counts a successful transfer towards recovering the limit. */
  onSuccess(): void {
    if (this.current >= this.max) return;
    if (++this.successes >= (this.options.recoverAfter ?? 4)) {
      this.successes = 0;
      this.current++;
      this.drain();
    }
  }

  /** Halves the limit after a SlowDown / 429; returns true when it actually changed. */
  onThrottle(): boolean {
    const now = (this.options.now ?? Date.now)();
    if (now - this.lastDecrease < (this.options.coolDownMs ?? 1_000)) return false;
    this.lastDecrease = now;
    this.successes = 0;
    const next = Math.max(1, Math.floor(this.current / 2));
    const changed = next !== this.current;
    this.current = next;
    return changed;
  }

  private drain(): void {
    while (this.inUse < this.current && this.waiters.length > 0) {
      this.inUse++;
      this.waiters.shift()!();
    }
  }
}
