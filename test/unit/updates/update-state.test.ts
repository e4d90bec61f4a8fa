import { describe, expect, it } from 'vitest';

import {
  checkOutcome,
  nextUpdateState,
  type UpdateEvent,
  type UpdateState,
} from '../../../src-main/core/updates/update-state.js';
import { parseVersion } from '../../../src-main/core/updates/version-order.js';

const offer = { version: '0.2.0', notes: 'Faster uploads.' };
const run = (events: UpdateEvent[], from: UpdateState = { phase: 'idle' }) =>
  events.reduce(nextUpdateState, from);

describe('the update prompt', () => {
  it('goes idle → checking → available → downloading → ready, only on the user’s word', () => {
    const available = run([{ type: 'check' }, { type: 'found', offer, later: false }]);
    expect(available).toEqual({ phase: 'available', offer, later: false });
    // Progress or a finished download without the user's "Download" changes nothing.
    expect(run([{ type: 'progress', percent: 50 }, { type: 'downloaded' }], available)).toBe(
      available,
    );
    const ready = run(
      [{ type: 'download' }, { type: 'progress', percent: 33.7 }, { type: 'downloaded' }],
      available,
    );
    expect(ready).toEqual({ phase: 'ready', offer });
  });

  it('does not let a check interrupt a download or a ready install', () => {
    const downloading = run([
      { type: 'check' },
      { type: 'found', offer, later: false },
      { type: 'download' },
    ]);
    expect(nextUpdateState(downloading, { type: 'check' })).toBe(downloading);
    const ready = nextUpdateState(downloading, { type: 'downloaded' });
    expect(nextUpdateState(ready, { type: 'check' })).toBe(ready);
  });

  it('keeps the offer through a failed download, for another try', () => {
    const failed = run([
      { type: 'check' },
      { type: 'found', offer, later: false },
      { type: 'download' },
      { type: 'failed', reason: 'The connection dropped.' },
    ]);
    expect(failed).toEqual({
      phase: 'failed',
      during: 'download',
      reason: 'The connection dropped.',
      offer,
    });
    expect(nextUpdateState(failed, { type: 'download' })).toEqual({
      phase: 'downloading',
      offer,
      percent: 0,
    });
  });

  it('never leaves a build without a feed', () => {
    const state: UpdateState = { phase: 'not-configured', message: 'x' };
    expect(run([{ type: 'check' }, { type: 'found', offer, later: false }], state)).toBe(state);
  });
});

describe('checkOutcome()', () => {
  const at = '2025-11-21T12:00:00.000Z';
  const feed = (version: string) => ({ version, parsedVersion: parseVersion(version)!, notes: '' });
  const outcome = (version: string, current: string, skipped: string | null, manual = false) =>
    checkOutcome({
      feed: feed(version),
      current: parseVersion(current)!,
      skipped: skipped ? parseVersion(skipped) : null,
      manual,
      at,
    });

  it('offers only a newer version', () => {
    expect(outcome('0.2.0', '0.1.0', null)).toMatchObject({ type: 'found', later: false });
    expect(outcome('0.1.0', '0.1.0', null)).toEqual({ type: 'up-to-date', latest: '0.1.0', at });
    expect(outcome('0.0.9', '0.1.0', null)).toEqual({ type: 'up-to-date', latest: '0.0.9', at });
  });

  it('keeps a put-off version quiet until a newer one, unless the user asks', () => {
    expect(outcome('0.2.0', '0.1.0', '0.2.0')).toMatchObject({ type: 'found', later: true });
    expect(outcome('0.2.0', '0.1.0', '0.2.0', true)).toMatchObject({ later: false });
    expect(outcome('0.2.1', '0.1.0', '0.2.0')).toMatchObject({ type: 'found', later: false });
  });
});
