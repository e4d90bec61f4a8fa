import { describe, expect, it } from 'vitest';

import { albumOf, placeOf } from '../../../src-main/core/model/albums.js';
import { memoPerDraft } from '../../../src-main/core/model/draft-memo.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { draft, fromTag } from './helpers.js';

const track = (title: string) =>
  draft('Harbour Lights/01 Song.flac', {
    album: { title: fromTag(title), trackPosition: fromTag('1') },
  });

describe('memoPerDraft()', () => {
  it('works a value out once per draft object, and again for an edited copy', () => {
    const calls: string[] = [];
    const titleOf = memoPerDraft((d) => {
      calls.push(d.album?.title?.value ?? '');
      return d.album?.title?.value ?? null;
    });
    const first = track('Harbour Lights');
    expect([titleOf(first), titleOf(first)]).toEqual(['Harbour Lights', 'Harbour Lights']);
    const edited: DraftTrack = { ...first, album: { title: fromTag('Low Tide') } };
    expect(titleOf(edited)).toBe('Low Tide');
    expect(calls).toEqual(['Harbour Lights', 'Low Tide']);
  });

  it('remembers null, and keeps each memo of a draft apart', () => {
    let computed = 0;
    const none = memoPerDraft(() => (computed++, null));
    const one = memoPerDraft(() => 1);
    const d = track('Harbour Lights');
    expect([none(d), none(d), one(d), none(d)]).toEqual([null, null, 1, null]);
    expect(computed).toBe(1);
  });

  it('leaves nothing on the draft that copying, cloning or saving it would carry', () => {
    const d = track('Harbour Lights');
    const before = JSON.stringify(d);
    albumOf(d);
    placeOf(d);
    expect(JSON.stringify(d)).toBe(before);
    expect(Object.keys(d)).toEqual(Object.keys(track('x')));
    expect(Object.getOwnPropertySymbols({ ...d })).toEqual([]);
    expect(Object.getOwnPropertySymbols(structuredClone(d))).toEqual([]);
  });

  it('computes each time for a frozen draft, and for a proxy that refuses the memo', () => {
    const frozen = Object.freeze(track('Harbour Lights'));
    expect(albumOf(frozen).label).toContain('Harbour Lights');
    const refusing = new Proxy(track('Low Tide'), {
      defineProperty() {
        throw new TypeError('descriptors are fixed');
      },
    });
    expect(albumOf(refusing).label).toContain('Low Tide');
    expect(albumOf(refusing)).toEqual(albumOf(refusing));
  });
});
