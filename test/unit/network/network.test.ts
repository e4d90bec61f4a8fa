import { describe, expect, it } from 'vitest';

import { ApiError } from '../../../src-main/core/api/api-error.js';
import { redactor, redactValue } from '../../../src-main/core/log.js';
import {
  NetworkError,
  networkReason,
  Reachability,
} from '../../../src-main/core/network/reachability.js';
import {
  DEFAULT_TIMEOUTS,
  resolveTimeouts,
  timeoutsFromEnv,
} from '../../../src-main/core/network/timeouts.js';
import { classifyFailure } from '../../../src-main/core/storage/retry.js';

describe('network timeouts', () => {
  it('report an unreachable host well within 30 s by default', () => {
    const { connectMs, idleMs, unreachableMs } = DEFAULT_TIMEOUTS;
    expect(Math.max(unreachableMs, connectMs)).toBeLessThan(30_000);
    expect(idleMs).toBeLessThanOrEqual(30_000);
  });

  it('read overrides from COURIER_NETWORK_TIMEOUTS and ignore what they cannot use', () => {
    const env = { COURIER_NETWORK_TIMEOUTS: 'idle=2000, connect=1500,retry=-1,bogus=4' };
    expect(timeoutsFromEnv(env)).toEqual({ idleMs: 2000, connectMs: 1500 });
    expect(resolveTimeouts(timeoutsFromEnv(env), { idleMs: undefined })).toEqual({
      ...DEFAULT_TIMEOUTS,
      idleMs: 2000,
      connectMs: 1500,
    });
  });
});

describe('reachability', () => {
  const failure = new NetworkError('bucket', 'b.example:9000', 'connection refused');

  it('declares a host that never answered unreachable once its retry would pass the bound', () => {
    let now = 1_000;
    const reach = new Reachability('bucket', 'b.example:9000', 15_000, () => now);
    reach.attempting();
    expect(reach.giveUp(failure, now + 2_000)).toBeUndefined();
    now += 10_000;
    const error = reach.giveUp(failure, now + 8_000);
    expect(error?.code).toBe('unreachable');
    expect(error?.message).toMatch(/b\.example:9000 \(connection refused.*endpoint/);
    expect(reach.unreachable).toBe(error);
  });

  it('never declares a host that has answered once', () => {
    const reach = new Reachability('bucket', 'h', 1, () => 0);
    reach.attempting();
    reach.answered();
    expect(reach.giveUp(failure, Infinity)).toBeUndefined();
    expect(reach.deadline()).toBeUndefined();
  });

  it('names the innermost cause of a failed fetch', () => {
    const error = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    expect(networkReason(error)).toBe('connection refused');
  });

  it('retries a request without answer, never an unreachable host', () => {
    expect(classifyFailure(failure)).toBe('retry');
    const reach = new Reachability('bucket', 'h', 0, () => 0);
    reach.attempting();
    expect(classifyFailure(reach.giveUp(failure, Infinity))).toBe('fatal');
  });
});

describe('redaction', () => {
  it('redacts known tokens and secret fields anywhere in a value, keeping it JSON', () => {
    redactor.add('tok_abcdef123456');
    const body = {
      echo: 'Bearer tok_abcdef123456',
      seen: ['it was tok_abcdef123456'],
      token: 42,
      password: 'hunter22',
      count: 3,
    };
    expect(redactValue(body)).toEqual({
      echo: 'Bearer [redacted]',
      seen: ['it was [redacted]'],
      token: 42,
      password: '[redacted]',
      count: 3,
    });
  });

  it('builds ApiError messages and bodies redacted', () => {
    redactor.add('tok_zyxwvu987654');
    const error = new ApiError('server_error', 'failed for tok_zyxwvu987654', 500, 'POST /x', {
      error: { message: 'Bearer tok_zyxwvu987654' },
    });
    expect(error.message).toBe('failed for [redacted]');
    expect(JSON.stringify(error.body)).not.toContain('tok_zyxwvu987654');
  });
});
