import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { type PauseState, TransferPause } from '../../../src-main/core/storage/transfer-pause.js';

describe('TransferPause', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const setup = () => {
    const states: PauseState[] = [];
    const pause = new TransferPause((s) => states.push(s), 750);
    return { pause, states, run: new AbortController().signal };
  };

  it('is paused at once when nothing is in flight, and lets nothing start until resume', async () => {
    const { pause, states, run } = setup();
    pause.pause();
    expect(states).toEqual([{ state: 'paused' }]);
    expect(pause.open(run)).toBeUndefined();
    let running = false;
    void pause.whenRunning().then(() => (running = true));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(running).toBe(false);
    pause.resume();
    await vi.advanceTimersByTimeAsync(0);
    expect(running).toBe(true);
    expect(states.at(-1)).toEqual({ state: 'running' });
    expect(pause.open(run)).toBeDefined();
  });

  it('lets requests that land within the grace finish, and aborts the rest for a resend', async () => {
    const { pause, states, run } = setup();
    const landing = pause.open(run)!;
    const slow = pause.open(run)!;
    pause.pause();
    expect(states).toEqual([{ state: 'pausing', finishing: 2 }]);
    await vi.advanceTimersByTimeAsync(300);
    landing.close();
    expect(landing.pausedOut).toBe(false);
    expect(states.at(-1)).toEqual({ state: 'pausing', finishing: 1 });
    await vi.advanceTimersByTimeAsync(450);
    expect(slow.signal.aborted).toBe(true);
    expect(slow.pausedOut).toBe(true);
    slow.close();
    expect(states.at(-1)).toEqual({ state: 'paused' });
  });

  it('passes a cancel on to the requests in flight', () => {
    const { pause } = setup();
    const cancel = new AbortController();
    const flight = pause.open(cancel.signal)!;
    cancel.abort(new Error('canceled'));
    expect(flight.signal.aborted).toBe(true);
    expect(flight.pausedOut).toBe(false);
  });
});
