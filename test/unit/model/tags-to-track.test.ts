import type { IAudioMetadata } from 'music-metadata';
import { describe, expect, it } from 'vitest';

import { draftFromMetadata, repairLatin1Utf8 } from '../../../src-main/core/model/tags-to-track.js';

function meta(
  tagType: string,
  tags: [string, unknown][],
  common: Partial<IAudioMetadata['common']> = {},
): IAudioMetadata {
  return {
    format: { tagTypes: [tagType as never], trackInfo: [], container: 'X', codec: 'Y' },
    native: { [tagType]: tags.map(([id, value]) => ({ id, value })) },
    quality: { warnings: [] },
    common: {
      track: { no: null, of: null },
      disk: { no: null, of: null },
      movementIndex: { no: null, of: null },
      ...common,
    },
  };
}

describe('draftFromMetadata()', () => {
  it("finds a UPC under TXXX:UPC and remembers each value's tag", () => {
    const d = draftFromMetadata(
      meta(
        'ID3v2.4',
        [
          ['TIT2', 'Help!'],
          ['TSRC', 'GBAYE0601477'],
          ['TXXX:UPC', '094638241621'],
          ['TRCK', '01/14'],
          ['TPOS', '1/1'],
          ['TDRC', '1965-08-06'],
          ['TPUB', 'Parlophone'],
          ['TXXX:CATALOGNUMBER', 'PCS 3071'],
          ['TCMP', '1'],
          ['USLT', { language: 'eng', descriptor: '', text: 'Help, I need somebody' }],
          ['TCON', 'Rock'],
          ['TMOO', 'Urgent'],
        ],
        { artists: ['The Beatles'], genre: ['Rock'] },
      ),
      'Help/01 Help.mp3',
    );
    expect(d.title).toEqual({ value: 'Help!', source: { kind: 'tag', tag: 'TIT2' } });
    expect(d.isrc?.source).toEqual({ kind: 'tag', tag: 'TSRC' });
    expect(d.album?.upc).toEqual({
      value: '094638241621',
      source: { kind: 'tag', tag: 'TXXX:UPC' },
    });
    expect(d.album?.trackPosition?.value).toBe('01');
    expect(d.album?.diskNumber?.value).toBe('1');
    expect(d.album?.releaseDate?.value).toBe('1965-08-06');
    expect(d.album?.label?.value).toBe('Parlophone');
    expect(d.album?.catalogNumber?.source).toEqual({ kind: 'tag', tag: 'TXXX:CATALOGNUMBER' });
    expect(d.album?.type).toEqual({ value: 'Compilation', source: { kind: 'tag', tag: 'TCMP' } });
    expect(d.lyrics?.value).toBe('Help, I need somebody');
    expect(d.artists?.value).toEqual([{ name: 'The Beatles', role: 'Main' }]);
    expect(d.customerTags?.value).toEqual([
      { tag: 'Rock', category: 'Genre' },
      { tag: 'Urgent', category: 'Mood' },
    ]);
    expect(d.primaryMedia).toEqual({ value: 'Help/01 Help.mp3', source: { kind: 'file-name' } });
  });
  it('keeps ID3v2.3 names that music-metadata split at "/" whole', () => {
    const d = draftFromMetadata(
      meta(
        'ID3v2.3',
        [
          ['TPE1', 'AC'],
          ['TPE1', 'DC'],
          ['TXXX:CATALOGNUMBER', 'EPC'],
          ['TXXX:CATALOGNUMBER', '2001'],
          ['TCOM', 'Angus Young'],
        ],
        { artists: ['AC', 'DC'] },
      ),
      'a.mp3',
    );
    expect(d.artists?.value).toEqual([
      { name: 'AC/DC', role: 'Main' },
      { name: 'Angus Young', role: 'Composer' },
    ]);
    // The source says the family joins values with "/", for validation to weigh.
    expect(d.artists?.source).toEqual({ kind: 'tag', tag: 'TPE1', joinedWith: '/' });
    expect(d.album?.catalogNumber?.value).toBe('EPC/2001');
    const v24 = draftFromMetadata(meta('ID3v2.4', [['TPE1', 'AC/DC']]), 'a.mp3');
    expect(v24.artists).toEqual({
      value: [{ name: 'AC/DC', role: 'Main' }],
      source: { kind: 'tag', tag: 'TPE1' },
    });
  });
  it('keeps separate Vorbis ARTIST entries as separate artists', () => {
    const d = draftFromMetadata(
      meta('vorbis', [
        ['ARTIST', 'Alice'],
        ['ARTIST', 'Bob'],
      ]),
      'a.flac',
    );
    expect(d.artists?.value.map((a) => a.name)).toEqual(['Alice', 'Bob']);
  });
  it('joins ID3v2.3 TYER and TDAT into a full date', () => {
    const d = draftFromMetadata(
      meta('ID3v2.3', [
        ['TYER', '1965'],
        ['TDAT', '0608'],
      ]),
      'a.mp3',
    );
    expect(d.releaseDate).toEqual({
      value: '1965-08-06',
      source: { kind: 'tag', tag: 'TYER+TDAT' },
    });
    const yearOnly = draftFromMetadata(meta('ID3v2.3', [['TYER', '1965']]), 'a.mp3');
    expect(yearOnly.releaseDate?.value).toBe('1965');
  });
  it('reads Vorbis EAN and iTunes BARCODE names', () => {
    expect(
      draftFromMetadata(meta('vorbis', [['EAN', '4006381333931']]), 'a.flac').album?.upc?.source,
    ).toEqual({ kind: 'tag', tag: 'EAN' });
    expect(
      draftFromMetadata(
        meta('iTunes', [['----:com.apple.iTunes:BARCODE', '036000291452']]),
        'a.m4a',
      ).album?.upc?.value,
    ).toBe('036000291452');
  });
  it('repairs UTF-8 RIFF INFO text read as Latin-1, and ignores a RIFF "ISRC" that is a source name', () => {
    const d = draftFromMetadata(
      meta('exif', [
        ['INAM', 'CafÃ© del Mar'],
        ['ISRC', 'Studio B tape'],
      ]),
      'a.wav',
    );
    expect(d.title?.value).toBe('Café del Mar');
    expect(d.isrc).toBeUndefined();
    const good = draftFromMetadata(meta('exif', [['ISRC', 'USRC17607839']]), 'a.wav');
    expect(good.isrc).toEqual({ value: 'USRC17607839', source: { kind: 'tag', tag: 'ISRC' } });
  });
  it('takes a BWF ISRC from the bext description', () => {
    const d = draftFromMetadata(
      meta('exif', [['bext.description', 'ISRC:GB-AYE-06-01498 master']]),
      'a.wav',
    );
    expect(d.isrc).toEqual({
      value: 'GB-AYE-06-01498',
      source: { kind: 'tag', tag: 'bext.description' },
    });
  });
  it('keeps Latin-1 text that is not misread UTF-8', () => {
    expect(repairLatin1Utf8('Café')).toBe('Café');
    expect(repairLatin1Utf8('plain')).toBe('plain');
    expect(repairLatin1Utf8('Ã¼ber')).toBe('über');
  });
  it('falls back to common tags and gives no album when nothing album-like exists', () => {
    const d = draftFromMetadata(meta('APEv2', [], { title: 'T', year: 2001 }), 'a.ape');
    expect(d.title?.source).toEqual({ kind: 'tag', tag: 'APEv2:title' });
    expect(d.releaseDate?.value).toBe('2001');
    expect(d.album).toBeUndefined();
  });
});
