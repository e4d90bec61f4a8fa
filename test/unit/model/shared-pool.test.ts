import { describe, expect, it } from 'vitest';

import { reviewAlbums } from '../../../src-main/core/model/album-review.js';
import { albumOf, placeOf } from '../../../src-main/core/model/albums.js';
import { withSharedNames } from '../../../src-main/core/model/audio-properties.js';
import { SharedPool } from '../../../src-main/core/model/shared-pool.js';
import { draft, fromTag } from './helpers.js';

/** Track `n` of album `a` (12 tracks each), as a worker or a saved library hands it over. */
const track = (a: number, n: number, label = 'Tidal Records') =>
  structuredClone(
    draft(`Album ${a}/${String(n).padStart(2, '0')}.flac`, {
      title: fromTag(`Song ${n}`),
      artists: fromTag([{ name: `Artist ${a}`, role: 'Album Artist' }]),
      album: {
        title: fromTag(`Album ${a}`),
        label: fromTag(label),
        trackPosition: fromTag(String(n)),
      },
    }),
  );

describe('SharedPool', () => {
  it('hands every holder of a key the first value, and starts again past its bound', () => {
    const pool = new SharedPool<{ n: number }>(2);
    const first = pool.get('a', { n: 1 });
    expect(pool.get('a', { n: 1 })).toBe(first);
    pool.get('b', { n: 2 });
    // Full: the pool starts again, and the value it is handed is the one kept from then on.
    const third = pool.get('c', { n: 3 });
    const again = { n: 1 };
    expect(pool.get('a', again)).toBe(again);
    expect(pool.get('c', { n: 3 })).toBe(third);
  });
});

describe('what is worked out per track of a large library', () => {
  it('is one object for the tracks of an album, and one per place across albums', () => {
    const one = track(1, 3);
    const other = track(1, 7);
    expect(albumOf(one)).toBe(albumOf(other));
    expect(albumOf(one)).toEqual({
      key: 'title:["album 1","artist 1"]',
      label: 'Album 1 — Artist 1',
    });
    expect(albumOf(track(2, 3))).not.toBe(albumOf(one));
    expect(placeOf(track(2, 3))).toBe(placeOf(one));
    expect(placeOf(one)).toEqual({ disk: '1', position: 3 });
  });

  it('still tells apart tracks whose fields differ only by where a NUL stands', () => {
    // Album fields are pooled by a key made of their texts: joined with NULs, album 'T' of
    // label 'L\0M' and date 'N' (in folder 4) and album 'T' of label 'L' and date 'M\0N' (in
    // folder 5) would make one key, and the second's first track would show the first's fields.
    const albumIn = (a: number, label: string, date: string) =>
      [label, 'Q'].map((text, i) => {
        const one = track(a, i + 1);
        delete one.artists;
        one.album = {
          ...one.album,
          title: fromTag('T'),
          label: fromTag(text),
          releaseDate: fromTag(date),
        };
        return one;
      });
    const { albums } = reviewAlbums([
      ...albumIn(4, 'L\u0000M', 'N'),
      ...albumIn(5, 'L', 'M\u0000N'),
    ]);
    const said = albums.map((album) => album.findings.map((f) => f.message).join(' | '));
    expect(said).toHaveLength(2);
    // Each album disagrees on its label only, and names its own.
    for (const text of said) expect(text).not.toContain('release date');
    expect(said[1]).toContain("'L'");
  });

  it('keeps two albums two when a NUL or a folder-like artist would join their keys', () => {
    const tagged = (file: string, title: string, albumArtist?: string) =>
      draft(file, {
        title: fromTag('Song'),
        ...(albumArtist ? { artists: fromTag([{ name: albumArtist, role: 'Album Artist' }]) } : {}),
        album: { title: fromTag(title) },
      });
    // Joined with a NUL, both keys were 'title:a\0b\0c'.
    expect(albumOf(tagged('x/1.flac', 'A\u0000B', 'C')).key).not.toBe(
      albumOf(tagged('y/1.flac', 'A', 'B\u0000C')).key,
    );
    // A compilation in folder 'Mix' (no album artist) and an album by an artist named like the
    // folder's part of that key were both 'title:t\0folder:mix'.
    expect(albumOf(tagged('Mix/1.flac', 'T')).key).not.toBe(
      albumOf(tagged('Other/1.flac', 'T', 'folder:Mix')).key,
    );
  });

  it("keeps an audio file's properties as they are, with its names held once", () => {
    const audio = {
      format: 'flac' as const,
      container: 'FLAC',
      codec: 'FLAC',
      lossless: true,
      sampleRate: 44_100,
      duration: 180.5,
    };
    expect(withSharedNames(structuredClone(audio))).toEqual(audio);
  });
});
