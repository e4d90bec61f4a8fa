import { describe, expect, it } from 'vitest';

import { speedAndEta } from '../../../src-main/cli/progress-line.js';
import { etaText, pauseText } from '../../../src-main/core/model/transfer-status.js';

describe('transfer status', () => {
  it('reads estimating… until there is an ETA, the same in the app and on the CLI', () => {
    expect(etaText(null)).toBe('estimating…');
    expect(etaText(185)).toBe('ETA 3 min 05 s');
    expect(speedAndEta({ bytesPerSecond: 5 * 1024 * 1024, etaSeconds: null })).toBe('estimating…');
    expect(speedAndEta({ bytesPerSecond: 1.5 * 1024 * 1024, etaSeconds: 42 })).toBe(
      '1.5 MiB/s · ETA 42 s',
    );
  });

  it('says pausing with the parts finishing, then paused', () => {
    expect(pauseText({ paused: false, finishing: 0 })).toBeUndefined();
    expect(pauseText({ paused: true, finishing: 2 })).toBe('pausing… (2 parts finishing)');
    expect(pauseText({ paused: true, finishing: 1 })).toBe('pausing… (1 part finishing)');
    expect(pauseText({ paused: true, finishing: 0 })).toBe('paused');
  });
});
