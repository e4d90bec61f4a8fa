import { describe, expect, it } from 'vitest';

import { backoffDelay, classifyFailure, sleep } from '../../../src-main/core/storage/retry.js';

const s3Error = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe('retry', () => {
  describe('classifyFailure()', () => {
    it.each([
      [s3Error('SlowDown', 503), 'slow-down'],
      [s3Error('TooManyRequests', 429), 'slow-down'],
      [s3Error('InternalError', 500), 'retry'],
      [s3Error('RequestTimeTooSkewed', 403), 'retry'],
      [s3Error('BadDigest', 400), 'retry'],
      [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'retry'],
      [Object.assign(new Error('socket hang up'), {}), 'retry'],
      [Object.assign(new Error('idle'), { name: 'TimeoutError' }), 'retry'],
      [s3Error('NoSuchUpload', 404), 'no-such-upload'],
      [s3Error('AccessDenied', 403), 'fatal'],
      [s3Error('NoSuchBucket', 404), 'fatal'],
      [Object.assign(new Error('aborted'), { name: 'AbortError' }), 'fatal'],
    ])('%s → %s', (error, kind) => {
      expect(classifyFailure(error)).toBe(kind);
    });
  });

  describe('backoffDelay()', () => {
    it('draws from [0, base·2^attempt) with full jitter, capped', () => {
      expect(backoffDelay(3, 100, 10_000, () => 0.999)).toBe(799);
      expect(backoffDelay(3, 100, 10_000, () => 0)).toBe(0);
      expect(backoffDelay(30, 100, 10_000, () => 0.5)).toBe(5_000);
    });
  });

  describe('sleep()', () => {
    it('rejects when its signal aborts', async () => {
      const controller = new AbortController();
      const slept = sleep(60_000, controller.signal);
      controller.abort(new Error('stop'));
      await expect(slept).rejects.toThrow('stop');
    });
  });
});
