import { describe, expect, it } from 'vitest';

import { normalizeDate } from '../../../src-main/core/model/dates.js';
import {
  applyFindingFix,
  applyTrackFix,
  findingFixAction,
  trackFixContext,
} from '../../../src-main/core/model/track-fixes.js';
import { validateDelivery, validateTrack } from '../../../src-main/core/model/validate.js';
import { draft, fromTag } from './helpers.js';

describe('normalizeDate()', () => {
  it.each([
    ['2019/3/4', '2019-03-04'],
    ['20190304', '2019-03-04'],
    ['2019.03.04', '2019-03-04'],
    ['2019-03-04T07:00:00Z', '2019-03-04'],
    ['2019-3', '2019-03'],
    ['2019', '2019'],
    ['2019-02-30', '2019-02-30'],
    ['04/03/2019', '04/03/2019'],
    ['soon', 'soon'],
  ])('writes %s as %s', (raw, expected) => {
    expect(normalizeDate(raw)).toBe(expected);
  });
});

describe('applyTrackFix()', () => {
  it('uses a valid ISRC as an outer_id that is missing or the file name, never one of the user', () => {
    const bare = draft('a.flac', { isrc: fromTag('gb-aye-21-00001') });
    const fixed = applyTrackFix('isrc-as-outer-id', bare);
    expect(fixed.outerId).toEqual({ value: 'GBAYE2100001', source: { kind: 'manual' } });
    const fromName = { ...bare, outerId: { value: 'a', source: { kind: 'file-name' as const } } };
    expect(applyTrackFix('isrc-as-outer-id', fromName).outerId?.value).toBe('GBAYE2100001');
    const named = { ...bare, outerId: fromTag('mine') };
    expect(applyTrackFix('isrc-as-outer-id', named)).toBe(named);
    const invalid = draft('b.flac', { isrc: fromTag('nope') });
    expect(applyTrackFix('isrc-as-outer-id', invalid)).toBe(invalid);
  });

  it('leaves alone an ISRC that several tracks share', () => {
    const a = draft('a.flac', { isrc: fromTag('GBAYE2100001') });
    const b = draft('b.flac', { isrc: fromTag('GB-AYE-21-00001') });
    const context = trackFixContext([a, b, draft('c.flac')]);
    expect([...context.sharedIsrcs]).toEqual(['GBAYE2100001']);
    expect(applyTrackFix('isrc-as-outer-id', a, [], context)).toBe(a);
    const [finding] = validateDelivery([a, b])[0]!.filter((f) => f.field === 'outer_id');
    expect(finding).toEqual({
      level: 'error',
      field: 'outer_id',
      message: 'outer_id is missing; every track needs a unique id',
    });
  });

  it('normalises the track and album release dates, and nothing else', () => {
    const d = draft('a.flac', {
      releaseDate: fromTag('2021/5/14'),
      album: { releaseDate: fromTag('20210514'), title: fromTag('Night Shift') },
    });
    const fixed = applyTrackFix('normalize-dates', d);
    expect(fixed.releaseDate?.value).toBe('2021-05-14');
    expect(fixed.album?.releaseDate?.value).toBe('2021-05-14');
    expect(fixed.album?.title).toEqual(d.album!.title);
    expect(applyTrackFix('normalize-dates', fixed)).toBe(fixed);
  });

  it('splits artist credits as the findings offer', () => {
    const d = draft('a.flac', {
      artists: fromTag([{ name: 'Aurora Vale feat. Nils Berg', role: 'Main' }]),
    });
    const fixed = applyTrackFix('split-artists', d, validateTrack(d));
    expect(fixed.artists?.value).toEqual([
      { name: 'Aurora Vale', role: 'Main' },
      { name: 'Nils Berg', role: 'Featured' },
    ]);
    expect(applyTrackFix('split-artists', d, [])).toBe(d);
  });
});

describe('the fix a finding offers', () => {
  it('offers the ISRC for a missing outer_id, and applies it on one click', () => {
    const d = draft('a.flac', { isrc: fromTag('GBAYE2100001') });
    const finding = validateTrack(d).find((f) => f.field === 'outer_id')!;
    expect(finding.message).toBe('outer_id is missing; use the ISRC GBAYE2100001 as its id?');
    expect(findingFixAction(finding.fix!)).toEqual({
      text: 'Use ISRC',
      label: 'Use the ISRC GBAYE2100001 as outer_id',
    });
    expect(applyFindingFix(d, finding.fix!).outerId?.value).toBe('GBAYE2100001');
    const none = validateTrack(draft('b.flac')).find((f) => f.field === 'outer_id')!;
    expect(none.fix).toBeUndefined();
  });
});
