import { describe, expect, it } from 'vitest';

import {
  datePrefix,
  type FileOracle,
  type OracleTool,
  type ToolReading,
  verdict,
} from '../../support/corpus-oracle.js';

/** An oracle answer for a file the tools read as given. */
function oracle(readings: Partial<Record<OracleTool, ToolReading>>): FileOracle {
  return {
    file: 'x.mp3',
    probe: { opens: true, audioStreams: 1, videoStreams: 0, decodedFrames: 1, errors: '' },
    mutagenType: 'MP3',
    readings,
  };
}

describe('the corpus oracle', () => {
  describe('verdict()', () => {
    it('agrees where every tool with a value reads the same, normalised', () => {
      const o = oracle({
        mutagen: { title: ['Home '], track: ['05/14'], isrc: ['us-ug1-04-00421'] },
        exiftool: { title: ['Home'], track: ['5 of 14'], isrc: ['USUG10400421'] },
        ffprobe: { title: ['Home'], track: ['5/14'] },
      });
      expect(verdict(o, 'title')).toEqual({
        kind: 'agreed',
        value: 'Home',
        tools: ['mutagen', 'exiftool', 'ffprobe'],
      });
      expect(verdict(o, 'track')).toMatchObject({ kind: 'agreed', value: 5 });
      expect(verdict(o, 'isrc')).toMatchObject({ kind: 'agreed', value: ['USUG10400421'] });
    });

    it('needs two tools: one alone, or none, is no verdict', () => {
      const o = oracle({ mutagen: { album: ['Only mutagen'] }, exiftool: {}, ffprobe: {} });
      expect(verdict(o, 'album')).toEqual({ kind: 'unknown' });
      expect(verdict(o, 'upc')).toEqual({ kind: 'unknown' });
    });

    it('is disputed when two tools read different values', () => {
      const o = oracle({ mutagen: { title: ['Between Worlds'] }, exiftool: { title: ['䈀攀琀'] } });
      expect(verdict(o, 'title').kind).toBe('disputed');
    });

    it("keeps mutagen's list whether the others join it, drop its NULs or keep its first name", () => {
      const names = ['Beth Hart', 'Joe Bonamassa'];
      for (const other of [
        ['Beth Hart/Joe Bonamassa'],
        ['Beth HartJoe Bonamassa'],
        ['Beth Hart'],
      ]) {
        const o = oracle({ mutagen: { artists: names }, exiftool: { artists: other } });
        expect(verdict(o, 'artists'), other[0]).toMatchObject({ kind: 'agreed', value: names });
      }
    });

    it('keeps a slash inside one name when mutagen reads it as one ("AC/DC")', () => {
      const o = oracle({ mutagen: { artists: ['AC/DC'] }, ffprobe: { artists: ['AC/DC'] } });
      expect(verdict(o, 'artists')).toMatchObject({ kind: 'agreed', value: ['AC/DC'] });
    });

    it('agrees on dates at their common precision and keeps the most precise', () => {
      const o = oracle({
        mutagen: { date: ['2011-09-27'] },
        exiftool: { date: ['2011:09:27'] },
        ffprobe: { date: ['2011'] },
      });
      expect(verdict(o, 'date')).toMatchObject({ kind: 'agreed', value: '2011-09-27' });
      const other = oracle({ mutagen: { date: ['2011-09-27'] }, ffprobe: { date: ['2012'] } });
      expect(verdict(other, 'date').kind).toBe('disputed');
    });
  });

  describe('datePrefix()', () => {
    it('reads the YYYY[-MM[-DD]] a date starts with', () => {
      expect(datePrefix('2013-04-29T07:00:00Z')).toBe('2013-04-29');
      expect(datePrefix('20110927')).toBe('2011-09-27');
      expect(datePrefix('2011:9:7')).toBe('2011-09-07');
      expect(datePrefix('2004')).toBe('2004');
      expect(datePrefix('0000')).toBe('0000');
      expect(datePrefix('May 2004')).toBeNull();
    });
  });
});
