import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RateLimiter } from '../../../src-main/core/storage/rate-limiter.js';

describe('rate limiter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('keeps to the limit from the first byte, and allows a one-second burst after idling', async () => {
    const limiter = new RateLimiter(1_000_000, () => Date.now());
    // The bucket starts empty when the first byte asks, however long after it was made.
    await vi.advanceTimersByTimeAsync(3_000);
    // 20 kB need 20 ms.
    let first = false;
    void limiter.take(20_000).then(() => (first = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(first).toBe(false);
    await vi.advanceTimersByTimeAsync(15);
    expect(first).toBe(true);
    // After five idle seconds, one second's worth goes at once, and no more.
    await vi.advanceTimersByTimeAsync(5_000);
    let burst = false;
    void limiter.take(1_000_000).then(() => (burst = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(burst).toBe(true);
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
