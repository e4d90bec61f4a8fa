import { describe, expect, it } from 'vitest';

import {
  compareVersions,
  formatVersion,
  isNewer,
  parseVersion,
} from '../../../src-main/core/updates/version-order.js';

const v = (text: string) => {
  const version = parseVersion(text);
  if (!version) throw new Error(`not a version: ${text}`);
  return version;
};

describe('version order', () => {
  it('orders versions as semver.org’s precedence example does', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '1.10.0',
      '2.0.0',
    ];
    const shuffled = [...ordered].reverse();
    expect(shuffled.sort((a, b) => compareVersions(v(a), v(b)))).toEqual(ordered);
  });

  it('ignores build metadata and a leading v', () => {
    expect(compareVersions(v('v0.2.0+20251120'), v('0.2.0'))).toBe(0);
    expect(formatVersion(v('v0.2.0-rc.1+abc'))).toBe('0.2.0-rc.1');
  });

  it('never calls the same or an older version newer', () => {
    expect(isNewer(v('0.1.0'), v('0.1.0'))).toBe(false);
    expect(isNewer(v('0.0.9'), v('0.1.0'))).toBe(false);
    expect(isNewer(v('0.1.0-rc.1'), v('0.1.0'))).toBe(false);
    expect(isNewer(v('0.1.1'), v('0.1.0'))).toBe(true);
  });

  it.each(['', '1', '1.2', '01.2.3', '1.2.3-', '1.2.3-01', 'latest', '1.2.3.4'])(
    'refuses %j',
    (text) => {
      expect(parseVersion(text)).toBeNull();
    },
  );
});
