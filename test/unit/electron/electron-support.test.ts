import { describe, expect, it } from 'vitest';

import { supportVerdict } from '../../../scripts/electron-support.mjs';

describe('check:electron: the support window of Electron', () => {
  it('passes the latest three stable majors', () => {
    for (const pinned of ['45.4.1', '44.0.0', '43.2.3']) {
      expect(supportVerdict(pinned, '45.4.1')).toEqual({
        ok: true,
        line: `Electron ${pinned.split('.')[0]} is supported (supported: 43–45)`,
      });
    }
  });

  it('fails an older major in one line that says what to upgrade to', () => {
    expect(supportVerdict('41.7.1', '45.4.1')).toEqual({
      ok: false,
      line: 'Electron 41 is out of support (supported: 43–45): upgrade with npm install --save-dev electron@^45.4.1',
    });
  });

  it('fails when a version cannot be read, rather than passing', () => {
    expect(supportVerdict('41.7.1', 'garbage').ok).toBe(false);
  });
});
