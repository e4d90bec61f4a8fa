import { describe, expect, it } from 'vitest';

import {
  quitDialogOptions,
  QuitGuard,
  type QuitSteps,
} from '../../../src-main/electron/quit-guard.js';

function setup(
  active: number,
  answer: boolean | Promise<boolean>,
  overrides: Partial<QuitSteps> = {},
) {
  const calls: string[] = [];
  let quit!: () => void;
  const quitted = new Promise<void>((resolve) => (quit = resolve));
  const steps: QuitSteps = {
    activeTransfers: () => active,
    confirm: async (count) => {
      calls.push(`confirm ${count}`);
      return answer;
    },
    pauseAndFlush: async () => {
      calls.push('pause');
      active = 0;
    },
    cleanup: async () => void calls.push('cleanup'),
    quit: () => {
      calls.push('quit');
      quit();
    },
    onError: (step, error) => void calls.push(`error ${step}: ${(error as Error).message}`),
    ...overrides,
  };
  return { guard: new QuitGuard(steps, 50), calls, quitted };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('QuitGuard', () => {
  it('quits without asking when nothing is transferring, after cleaning up', async () => {
    const { guard, calls, quitted } = setup(0, true);
    expect(guard.request()).toBe(false);
    await quitted;
    expect(calls).toEqual(['cleanup', 'quit']);
    expect(guard.phase).toBe('done');
    expect(guard.request()).toBe(true);
  });

  it('asks first while transfers run, then pauses and flushes before quitting', async () => {
    const { guard, calls, quitted } = setup(2, true);
    expect(guard.request()).toBe(false);
    await quitted;
    expect(calls).toEqual(['confirm 2', 'pause', 'cleanup', 'quit']);
  });

  it('keeps transferring when the user says so, and asks again next time', async () => {
    const { guard, calls } = setup(1, false);
    expect(guard.request()).toBe(false);
    await tick();
    expect(guard.phase).toBe('running');
    expect(calls).toEqual(['confirm 1']);
    guard.request();
    await tick();
    expect(calls).toEqual(['confirm 1', 'confirm 1']);
  });

  it('absorbs repeated quit requests while the question is open', async () => {
    let answer!: (quit: boolean) => void;
    const { guard, calls, quitted } = setup(
      1,
      new Promise<boolean>((resolve) => (answer = resolve)),
    );
    guard.request();
    guard.request();
    guard.request();
    expect(guard.phase).toBe('asking');
    answer(true);
    await quitted;
    expect(calls.filter((call) => call.startsWith('confirm'))).toHaveLength(1);
  });

  it('quits anyway when pausing fails or hangs, and logs why', async () => {
    const { calls, guard, quitted } = setup(1, true, {
      pauseAndFlush: () => new Promise(() => undefined),
      cleanup: async () => {
        throw new Error('sandbox did not stop');
      },
    });
    guard.request();
    await quitted;
    expect(calls).toEqual([
      'confirm 1',
      'error pause: pause took longer than 50 ms',
      'error cleanup: sandbox did not stop',
      'quit',
    ]);
  });

  it('treats a dialog that fails as “keep transferring”', async () => {
    const { guard, calls } = setup(1, true, {
      confirm: async () => {
        throw new Error('no display');
      },
    });
    guard.request();
    await tick();
    expect(guard.phase).toBe('running');
    expect(calls).toEqual([]);
  });
});

describe('quitDialogOptions()', () => {
  it('defaults to keeping the transfers going, and Escape does the same', () => {
    const options = quitDialogOptions(1);
    expect(options.buttons).toEqual(['Pause and Quit', 'Keep Transferring']);
    expect(options.defaultId).toBe(1);
    expect(options.cancelId).toBe(1);
    expect(options.message).toBe('A delivery is still running. Quit Catalog Courier?');
    expect(quitDialogOptions(3).message).toMatch(/^3 deliveries are/);
  });
});
