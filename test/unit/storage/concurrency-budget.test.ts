import { describe, expect, it } from 'vitest';

import { ConcurrencyBudget } from '../../../src-main/core/storage/concurrency-budget.js';

describe('concurrency budget', () => {
  it('never lets more than the limit hold a slot', async () => {
    const budget = new ConcurrencyBudget(2);
    await budget.acquire();
    await budget.acquire();
    let third = false;
    const waiting = budget.acquire().then(() => (third = true));
    await Promise.resolve();
    expect(third).toBe(false);
    budget.release();
    await waiting;
    expect(budget.active).toBe(2);
  });

  it('halves on SlowDown once per cool-down, then recovers one slot per run of successes', () => {
    let now = 0;
    const budget = new ConcurrencyBudget(8, { recoverAfter: 2, coolDownMs: 1_000, now: () => now });
    expect(budget.onThrottle()).toBe(true);
    expect(budget.limit).toBe(4);
    expect(budget.onThrottle()).toBe(false);
    expect(budget.limit).toBe(4);
    now = 2_000;
    budget.onThrottle();
    expect(budget.limit).toBe(2);
    now = 4_000;
    budget.onThrottle();
    budget.onThrottle();
    expect(budget.limit).toBe(1);
    for (let i = 0; i < 100; i++) budget.onSuccess();
    expect(budget.limit).toBe(8);
  });

  it('holds back new transfers while over a lowered limit', async () => {
    const budget = new ConcurrencyBudget(4, { now: () => 0 });
    for (let i = 0; i < 4; i++) await budget.acquire();
    budget.onThrottle();
    budget.release();
    budget.release();
    let granted = false;
    const next = budget.acquire().then(() => (granted = true));
    await Promise.resolve();
    expect(granted).toBe(false);
    budget.release();
    await next;
    expect(budget.active).toBe(2);
  });

  it('drops a waiter whose signal aborts', async () => {
    const budget = new ConcurrencyBudget(1);
    await budget.acquire();
    const controller = new AbortController();
    const waiting = budget.acquire(controller.signal);
    controller.abort(new Error('canceled'));
    await expect(waiting).rejects.toThrow('canceled');
    budget.release();
    expect(budget.active).toBe(0);
  });
});
