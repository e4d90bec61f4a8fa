import { describe, expect, it } from 'vitest';

import { TokenCache } from '../../../src-main/core/api/token-cache.js';

describe('TokenCache', () => {
  const setup = (lifetimeMs = 7_200_000) => {
    let now = 1_000_000;
    let issued = 0;
    let release: () => void = () => undefined;
    let hold = false;
    const cache = new TokenCache(
      async () => {
        issued++;
        if (hold) await new Promise<void>((resolve) => (release = resolve));
        return { token: `token-${issued}`, lifetimeMs };
      },
      () => now,
    );
    return {
      cache,
      issued: () => issued,
      advance: (ms: number) => (now += ms),
      holdNext: () => (hold = true),
      release: () => release(),
    };
  };

  it('obtains a token on first need and reuses it', async () => {
    const t = setup();
    await expect(t.cache.get()).resolves.toBe('token-1');
    t.advance(60 * 60_000);
    await expect(t.cache.get()).resolves.toBe('token-1');
    expect(t.issued()).toBe(1);
  });

  it('renews ahead of expiry, not at the last second', async () => {
    const t = setup();
    await t.cache.get();
    t.advance(7_200_000 - 5 * 60_000 - 1);
    await expect(t.cache.get()).resolves.toBe('token-1');
    t.advance(2);
    await expect(t.cache.get()).resolves.toBe('token-2');
  });

  it('scales the margin to short lifetimes', async () => {
    const t = setup(2000);
    await t.cache.get();
    t.advance(1799);
    await expect(t.cache.get()).resolves.toBe('token-1');
    t.advance(2);
    await expect(t.cache.get()).resolves.toBe('token-2');
  });

  it('shares one request among concurrent callers', async () => {
    const t = setup();
    t.holdNext();
    const burst = Array.from({ length: 50 }, () => t.cache.get());
    t.release();
    await expect(Promise.all(burst)).resolves.toEqual(Array(50).fill('token-1'));
    expect(t.issued()).toBe(1);
  });

  it('drops a refused token, but not a newer one', async () => {
    const t = setup();
    await t.cache.get();
    t.cache.invalidate('token-1');
    await expect(t.cache.get()).resolves.toBe('token-2');
    t.cache.invalidate('token-1');
    await expect(t.cache.get()).resolves.toBe('token-2');
  });
});
