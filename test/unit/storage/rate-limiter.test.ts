import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RateLimiter } from '../../../src-main/core/storage/rate-limiter.js';

describe('rate limiter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('lets a one-second burst through, then spaces sends at the limit', async () => {
    const limiter = new RateLimiter(1_000_000, () => Date.now());
    let first = false;
    void limiter.take(1_000_000).then(() => (first = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(first).toBe(true);
    // The bucket is empty: 20 kB more needs 20 ms of refill.
    let second = false;
    void limiter.take(20_000).then(() => (second = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(second).toBe(false);
    await vi.advanceTimersByTimeAsync(15);
    expect(second).toBe(true);
  });

  it('refuses a zero or negative limit', () => {
    expect(() => new RateLimiter(0)).toThrow(RangeError);
  });
});
