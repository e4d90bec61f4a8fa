import { describe, expect, it } from 'vitest';

import { draftToTrack, ingestionBodies } from '../../../src-main/core/model/ingestion-body.js';
import { applyPattern, assignOuterIds } from '../../../src-main/core/model/outer-id.js';
import { draft, fromTag } from './helpers.js';

describe('draftToTrack()', () => {
  it('produces exactly the 2.4 track: no extra fields, sorted references and tags, typed dates', () => {
    const d = draft('Beatles/01 Come Together.flac', {
      outerId: fromTag('GBAYE0601690'),
      title: fromTag('  Come Together '),
      isrc: fromTag('gb-aye-06-01690'),
      releaseDate: fromTag('1969-09-26'),
      lyrics: fromTag("Here come old flat-top\nHe come groovin' up slowly"),
      references: fromTag([
        { id: 'mb-1', source: 'musicbrainz' },
        { id: 'd-1', source: 'discogs' },
      ]),
      customerTags: fromTag([
        { tag: 'Calm', category: 'Mood' },
        { tag: 'Rock', category: 'Genre' },
        { tag: 'Blues', category: 'Genre' },
      ]),
      album: {
        title: fromTag('Abbey Road'),
        upc: fromTag('0 94638 24682 4'),
        releaseDate: fromTag('1969-09-26'),
        type: fromTag('Official'),
        trackPosition: fromTag('01/17'),
        diskNumber: fromTag('1/1'),
        label: fromTag('Apple'),
        catalogNumber: fromTag('PCS 7088'),
      },
    });
    expect(draftToTrack(d)).toStrictEqual({
      outer_id: 'GBAYE0601690',
      primary_media: 'Beatles/01 Come Together.flac',
      references: [
        { id: 'd-1', source: 'discogs' },
        { id: 'mb-1', source: 'musicbrainz' },
      ],
      title: 'Come Together',
      lyrics: "Here come old flat-top\nHe come groovin' up slowly",
      isrc: 'GBAYE0601690',
      release_date: 19690926,
      albums: [
        {
          upc: '094638246824',
          title: 'Abbey Road',
          release_date: '19690926',
          type: 'Official',
          references: [{ id: 'PCS 7088', source: 'catalog_number' }],
          track_position: '1',
          disk_number: '1',
        },
      ],
      artists: [{ id: 'The Beatles', name: 'The Beatles', role: 'Main' }],
      customer_tags: [
        { tag: 'Rock', category: 'Genre' },
        { tag: 'Blues', category: 'Genre' },
        { tag: 'Calm', category: 'Mood' },
      ],
    });
  });
  it('leaves fields out rather than empty, and never sends a partial date', () => {
    const d = draft('a.wav', {
      outerId: fromTag('a'),
      title: fromTag('   '),
      artists: fromTag([]),
      releaseDate: fromTag('2019'),
      customerTags: fromTag([]),
      album: { releaseDate: fromTag('2019') },
    });
    expect(draftToTrack(d)).toStrictEqual({ outer_id: 'a', primary_media: 'a.wav' });
  });
  it('keeps a caller artist id and normalises text to NFC', () => {
    const d = draft('a.wav', {
      outerId: fromTag('a'),
      artists: fromTag([{ name: 'Bjo\u0308rk', role: 'Main', id: 'artist-42' }]),
    });
    expect(draftToTrack(d).artists).toEqual([{ id: 'artist-42', name: 'Björk', role: 'Main' }]);
  });
});

describe('ingestionBodies()', () => {
  it("sends a vinyl side's position as it is written, a number without its zeros and count", () => {
    const album = (position: string) =>
      draftToTrack(
        draft('a.wav', { outerId: fromTag('a'), album: { trackPosition: fromTag(position) } }),
      ).albums?.[0]?.track_position;
    expect(album(' B2 ')).toBe('B2');
    expect(album('03/12')).toBe('3');
  });
  it('batches at most 25 tracks per request', () => {
    const drafts = Array.from({ length: 51 }, (_, i) =>
      draft(`${i}.wav`, { outerId: fromTag(`t${i}`) }),
    );
    expect(ingestionBodies(drafts).map((b) => b.length)).toEqual([25, 25, 1]);
  });
  it('refuses a draft without outer_id', () => {
    expect(() => ingestionBodies([draft('a.wav')])).toThrow(/outer_id/);
  });
});

describe('assignOuterIds()', () => {
  const isrc = (value: string) => fromTag(value, 'TSRC');
  it('defaults to the ISRC when present, valid and unique, else the file name', () => {
    const result = assignOuterIds([
      draft('x/Song One.wav', { isrc: isrc('gb-aye-06-01498') }),
      draft('x/Dup A.wav', { isrc: isrc('USRC17607839') }),
      draft('x/Dup B.mp3', { isrc: isrc('USRC17607839') }),
      draft('x/Bad.flac', { isrc: isrc('NOPE') }),
      draft('x/No Isrc.tar.gz.wav'),
    ]);
    expect(result.map((d) => d.outerId?.value)).toEqual([
      'GBAYE0601498',
      'Dup A',
      'Dup B',
      'Bad',
      'No Isrc.tar.gz',
    ]);
    expect(result[0]!.outerId!.source).toEqual({ kind: 'tag', tag: 'TSRC' });
    expect(result[1]!.outerId!.source).toEqual({ kind: 'file-name' });
  });
  it('hands back a draft whose outer_id stays as it is, and a new one where it changes', () => {
    const once = assignOuterIds([
      draft('x/A.wav', { isrc: isrc('USRC17607839') }),
      draft('x/B.wav', { isrc: isrc('GBAYE0601498') }),
    ]);
    const again = assignOuterIds(once);
    expect(again[0]).toBe(once[0]);
    expect(again[1]).toBe(once[1]);
    // The second track now shares the first's ISRC: its id falls back to its file name.
    const shared = { ...once[1]!, isrc: isrc('USRC17607839') };
    const after = assignOuterIds([once[0]!, shared]);
    expect(after.map((d) => d.outerId?.value)).toEqual(['A', 'B']);
    expect(after[0]).not.toBe(once[0]);
  });
  it('uses the file name like audio_only, or the ISRC alone', () => {
    const d = draft('a/b/Cafe\u0301.wav', { isrc: isrc('USRC17607839') });
    expect(assignOuterIds([d], { kind: 'file-name' })[0]!.outerId!.value).toBe('Café');
    expect(assignOuterIds([d], { kind: 'isrc' })[0]!.outerId!.value).toBe('USRC17607839');
    expect(assignOuterIds([draft('a.wav')], { kind: 'isrc' })[0]!.outerId).toBeUndefined();
  });
  it('uses a tag such as the catalog number, or a pattern over fields', () => {
    const d = draft('a.wav', {
      album: {
        catalogNumber: fromTag('PCS 7088'),
        trackPosition: fromTag('03/17'),
        diskNumber: fromTag('1'),
      },
    });
    expect(assignOuterIds([d], { kind: 'tag', field: 'catalog_number' })[0]!.outerId!.value).toBe(
      'PCS 7088',
    );
    const patterned = assignOuterIds([d], {
      kind: 'pattern',
      pattern: '{catalog_number}-{disk_number}-{track_position}',
    });
    expect(patterned[0]!.outerId).toEqual({
      value: 'PCS 7088-1-3',
      source: { kind: 'derived', from: '{catalog_number}-{disk_number}-{track_position}' },
    });
    expect(applyPattern(d, '{isrc}-{track_position}')).toBeUndefined();
    expect(applyPattern(d, '{nonsense}')).toBeUndefined();
  });
  it('keeps an outer_id the user typed', () => {
    const d = draft('a.wav', { outerId: { value: 'mine', source: { kind: 'manual' } } });
    expect(assignOuterIds([d], { kind: 'file-name' })[0]!.outerId!.value).toBe('mine');
  });
});
