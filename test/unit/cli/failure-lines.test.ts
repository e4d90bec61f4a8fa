import { describe, expect, it } from 'vitest';

import { sentence, uploadFailureLines } from '../../../src-main/cli/failure-lines.js';

const failed = (localPath: string, message: string, code?: string) =>
  ({ type: 'file-failed', key: `k/${localPath}`, localPath, message, code }) as Parameters<
    ReturnType<typeof uploadFailureLines>
  >[0];

describe('uploadFailureLines()', () => {
  it('says an unreachable bucket once, however many files it fails', () => {
    const line = uploadFailureLines();
    const down = 'the bucket at 127.0.0.1:9 is unreachable; check the endpoint';
    expect(line(failed('a.wav', down, 'unreachable'))).toBe(down);
    expect(line(failed('b.wav', down, 'unreachable'))).toBeNull();
    expect(line(failed('c.wav', 'AccessDenied'))).toBe('c.wav: AccessDenied');
  });
});

describe('sentence()', () => {
  it('ends a message with exactly one full stop', () => {
    expect(sentence('check the firewall).')).toBe('check the firewall).');
    expect(sentence('check the firewall')).toBe('check the firewall.');
  });
});
