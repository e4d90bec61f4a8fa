import { describe, expect, it } from 'vitest';

import type { DraftTrack, ValueSource } from '../../../src-main/core/model/track.js';
import {
  addItem,
  commonParts,
  moveItem,
  removeItem,
  replaceItem,
  sameList,
  unionOf,
  withArtistId,
} from './nested-fields.js';

const manual: ValueSource = { kind: 'manual' };
const tag: ValueSource = { kind: 'tag', tag: 'TPE1' };

const track = (artists: Array<[string, string]>, extra: Partial<DraftTrack> = {}): DraftTrack => ({
  file: 'a.mp3',
  artists: { value: artists.map(([name, role]) => ({ name, role })), source: tag },
  ...extra,
});

describe('nested field edits', () => {
  it('counts each item over the selection and tells when the lists are the same', () => {
    const a = track([['Lena Park', 'Main']]);
    const b = track([
      ['Lena Park', 'Main'],
      ['Sam Reed', 'Composer'],
    ]);
    expect(unionOf([a, b], 'artists').map((u) => [u.item.name, u.count])).toEqual([
      ['Lena Park', 2],
      ['Sam Reed', 1],
    ]);
    expect(sameList([a, b], 'artists')).toBe(false);
    expect(sameList([a, a], 'artists')).toBe(true);
  });

  it('hands back the same draft when an edit changes nothing on it', () => {
    const a = track([['Lena Park', 'Main']]);
    expect(addItem(a, 'artists', { name: 'Lena Park', role: 'Main' }, manual)).toBe(a);
    expect(removeItem(a, 'artists', 'Sam Reed\u0000Main', manual)).toBe(a);
    expect(moveItem(a, 'artists', 'Lena Park\u0000Main', -1, manual)).toBe(a);
    expect(replaceItem(a, 'artists', 'Sam Reed\u0000Main', (x) => x, manual)).toBe(a);
  });

  it("keeps a track's own artist id when its role changes, and merges into an existing entry", () => {
    const a: DraftTrack = {
      file: 'a.mp3',
      artists: {
        value: [
          { name: 'Lena Park', role: 'Main', id: 'art-1' },
          { name: 'Lena Park', role: 'Composer' },
        ],
        source: tag,
      },
    };
    const next = replaceItem(
      a,
      'artists',
      'Lena Park\u0000Main',
      (x) => ({ ...x, role: 'Composer' }),
      manual,
    );
    expect(next.artists).toEqual({
      value: [{ name: 'Lena Park', role: 'Composer', id: 'art-1' }],
      source: manual,
    });
  });

  it("reads an artist's id over the tracks that have the artist, and sets or clears it", () => {
    const key = 'Lena Park\u0000Main';
    const idOf = (a: { id?: string }) => a.id ?? '';
    const bare = track([['Lena Park', 'Main']]);
    const other = track([['Sam Reed', 'Main']]);
    const named: DraftTrack = {
      file: 'b.mp3',
      artists: { value: [{ name: 'Lena Park', role: 'Main', id: 'art-1' }], source: tag },
    };
    // A track without the artist does not make its id mixed.
    expect(commonParts([named, other], 'artists', idOf).get(key)).toEqual({
      text: 'art-1',
      mixed: false,
    });
    expect(commonParts([named, bare], 'artists', idOf).get(key)).toEqual({
      text: '',
      mixed: true,
    });

    const artist = named.artists!.value[0]!;
    expect(withArtistId(artist, 'art-1')).toBe(artist);
    expect(withArtistId(artist, 'LP-7')).toEqual({ name: 'Lena Park', role: 'Main', id: 'LP-7' });
    expect(withArtistId(artist, '')).toEqual({ name: 'Lena Park', role: 'Main' });
    expect(replaceItem(bare, 'artists', key, (a) => withArtistId(a, ''), manual)).toBe(bare);
  });

  it('removes an album that its last reference leaves empty, and keeps other album fields', () => {
    const ref = { source: 'grid', id: 'A1-123' };
    const a: DraftTrack = { file: 'a.mp3', album: { references: { value: [ref], source: tag } } };
    expect(removeItem(a, 'albumReferences', 'grid\u0000A1-123', manual).album).toBeUndefined();
    const b: DraftTrack = {
      ...a,
      album: { ...a.album, title: { value: 'Night', source: tag } },
    };
    expect(removeItem(b, 'albumReferences', 'grid\u0000A1-123', manual).album).toEqual({
      title: { value: 'Night', source: tag },
    });
  });
});
