import { describe, expect, it } from 'vitest';

import { sharedSource, withSharedSources } from '../../../src-main/core/model/shared-sources.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';

/** A draft as a tags worker sends it: every source a fresh object (structured clone). */
const fromWorker = (n: number): DraftTrack =>
  structuredClone({
    file: `Album/${n}.flac`,
    title: { value: `Song ${n}`, source: { kind: 'tag', tag: 'TITLE' } },
    isrc: { value: 'USRC17607839', source: { kind: 'tag', tag: 'ISRC' } },
    artists: {
      value: [{ name: 'AC/DC', role: 'MainArtist' }],
      source: { kind: 'tag', tag: 'TPE1', joinedWith: '/' },
    },
    primaryMedia: { value: `Album/${n}.flac`, source: { kind: 'file-name' } },
    outerId: { value: 'cat-1', source: { kind: 'csv', column: 'outer_id' } },
    album: {
      title: { value: 'Album', source: { kind: 'tag', tag: 'ALBUM' } },
      upc: { value: '0123456789012', source: { kind: 'derived', from: 'catalogNumber' } },
    },
  } satisfies DraftTrack);

describe('withSharedSources()', () => {
  it('gives two drafts read apart the same source objects, and keeps every value', () => {
    const a = withSharedSources(fromWorker(1));
    const b = withSharedSources(fromWorker(2));
    expect(a.title!.source).toBe(b.title!.source);
    expect(a.artists!.source).toBe(b.artists!.source);
    expect(a.album!.title!.source).toBe(b.album!.title!.source);
    expect(a.album!.upc!.source).toBe(b.album!.upc!.source);
    expect(a.outerId!.source).toBe(b.outerId!.source);
    expect(a).toEqual(fromWorker(1));
    expect(b.title!.value).toBe('Song 2');
  });

  it('keeps apart sources that differ in any field', () => {
    const joined = sharedSource({ kind: 'tag', tag: 'TPE1', joinedWith: '/' });
    const plain = sharedSource({ kind: 'tag', tag: 'TPE1' });
    expect(joined).not.toBe(plain);
    expect(plain).toEqual({ kind: 'tag', tag: 'TPE1' });
    expect(sharedSource({ kind: 'csv' })).not.toBe(sharedSource({ kind: 'csv', column: 'x' }));
  });

  it('hands back the draft itself when its sources are shared already', () => {
    const once = withSharedSources(fromWorker(3));
    expect(withSharedSources(once)).toBe(once);
  });

  it('leaves a source with fields no source has as it is, and frozen ones cannot be changed', () => {
    const odd = { kind: 'tag', tag: 'TIT2', extra: 1 } as never;
    expect(sharedSource(odd)).toBe(odd);
    const one = sharedSource({ kind: 'manual' });
    expect(Object.isFrozen(one)).toBe(true);
  });

  it('gives the tracks of one album one object of each value they repeat, not of their own', () => {
    const a = withSharedSources(fromWorker(1));
    const b = withSharedSources(fromWorker(2));
    expect(a.album!.title).toBe(b.album!.title);
    expect(a.album!.upc).toBe(b.album!.upc);
    expect(a.artists).toBe(b.artists);
    expect(a.title).not.toBe(b.title);
    expect(a.isrc).not.toBe(b.isrc); // equal, but a track's own value
    expect(a).toEqual(fromWorker(1));
    expect(b).toEqual(fromWorker(2));
  });

  it('keeps apart equal values from other sources, and other values in one source', () => {
    const withAlbum = (title: string, tag: string) =>
      withSharedSources({
        ...fromWorker(1),
        album: { title: { value: title, source: { kind: 'tag', tag } } },
      });
    const tagged = withAlbum('Blue', 'ALBUM');
    expect(withAlbum('Blue', 'TALB').album!.title).not.toBe(tagged.album!.title);
    expect(withAlbum('Blue ', 'ALBUM').album!.title).not.toBe(tagged.album!.title);
    expect(withAlbum('Blue', 'ALBUM').album!.title).toBe(tagged.album!.title);
    const credited = (role: string) =>
      withSharedSources({
        ...fromWorker(1),
        artists: { value: [{ name: 'AC/DC', role }], source: { kind: 'manual' } },
      }).artists;
    expect(credited('Featuring')).not.toBe(credited('MainArtist'));
    expect(credited('Featuring')).toEqual({
      value: [{ name: 'AC/DC', role: 'Featuring' }],
      source: { kind: 'manual' },
    });
  });
});
