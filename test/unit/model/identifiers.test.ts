import { describe, expect, it } from 'vitest';

import {
  dateProblem,
  fromId3v23,
  isCalendarDate,
  parseDate,
  toYyyymmdd,
} from '../../../src-main/core/model/dates.js';
import {
  gs1CheckDigit,
  gtinKey,
  gtinProblem,
  normalizeGtin,
  sameGtin,
} from '../../../src-main/core/model/gtin.js';
import { isValidIsrc, normalizeIsrc } from '../../../src-main/core/model/isrc.js';

describe('isrc', () => {
  describe('normalizeIsrc()', () => {
    it('upper-cases and strips hyphens, spaces and an ISRC prefix', () => {
      expect(normalizeIsrc('gb-aye-06-01498')).toBe('GBAYE0601498');
      expect(normalizeIsrc('ISRC US-RC1-76-07839')).toBe('USRC17607839');
      expect(normalizeIsrc('ISRC:FR Z03 98 00212')).toBe('FRZ039800212');
      expect(normalizeIsrc(' usrc17607839 ')).toBe('USRC17607839');
    });

    it('strips "ISRC" only where it is a label: an Icelandic ISRC and a placeholder stay whole', () => {
      expect(normalizeIsrc('ISRCGBAYE0601498')).toBe('GBAYE0601498');
      // IS (Iceland) + registrant RC1: an ISRC that starts with the letters of the label.
      expect(normalizeIsrc('IS-RC1-76-07839')).toBe('ISRC17607839');
      expect(isValidIsrc(normalizeIsrc('IS-RC1-76-07839'))).toBe(true);
      expect(normalizeIsrc('isrc1')).toBe('ISRC1');
    });
  });
  describe('isValidIsrc()', () => {
    it('accepts real ISRCs', () => {
      for (const isrc of [
        'USRC17607839',
        'GBAYE0601498',
        'FRZ039800212',
        'QZES71982312',
        'DEA620900451',
      ]) {
        expect(isValidIsrc(isrc)).toBe(true);
      }
    });
    it('rejects wrong lengths, letters in the year or number, and a digit country code', () => {
      expect(isValidIsrc('USRC1760783')).toBe(false);
      expect(isValidIsrc('USRC176078390')).toBe(false);
      expect(isValidIsrc('GBAYE0A01498')).toBe(false);
      expect(isValidIsrc('GBAYE06014X8')).toBe(false);
      expect(isValidIsrc('1BAYE0601498')).toBe(false);
      expect(isValidIsrc(normalizeIsrc('not an isrc'))).toBe(false);
    });
  });
});

describe('gtin', () => {
  it('computes the GS1 check digit of real UPC-A and EAN-13 codes', () => {
    expect(gs1CheckDigit('03600029145')).toBe(2);
    expect(gs1CheckDigit('400638133393')).toBe(1);
  });
  it('accepts a UPC-A (12 digits) and an EAN-13 (13 digits) with their check digit', () => {
    expect(gtinProblem('036000291452')).toBeNull();
    expect(gtinProblem('4006381333931')).toBeNull();
    expect(gtinProblem('5099902988023')).toBeNull();
    expect(gtinProblem(normalizeGtin('0 36000 29145 2'))).toBeNull();
  });
  it('names the expected check digit when it is wrong', () => {
    expect(gtinProblem('036000291453')).toBe('check digit is 3, expected 2');
    expect(gtinProblem('4006381333932')).toBe('check digit is 2, expected 1');
  });
  it('rejects other lengths and non-digits', () => {
    expect(gtinProblem('03600029145')).toMatch(/11 digits/);
    expect(gtinProblem('04006381333931')).toMatch(/14 digits/);
    expect(gtinProblem('03600029145A')).toMatch(/other than digits/);
    expect(gtinProblem('12345678901')).toBe('has 11 digits; a UPC has 12 and an EAN 13');
  });
  it('says a spreadsheet dropped the leading zeros when the padded code is valid', () => {
    // 036000291452 read as a number by a spreadsheet: 36000291452.
    expect(gtinProblem('36000291452')).toBe(
      'has 11 digits: a spreadsheet that read it as a number dropped its leading zero; the UPC is 036000291452 (type the column as text, or use .xlsx)',
    );
    expect(gtinProblem('0036000291452')).toBeNull();
    expect(gtinProblem('1.2345E+12')).toMatch(/scientific notation, its digits lost/);
  });
  it('compares a UPC-A and its EAN-13 form (0 + UPC) as one product', () => {
    expect(gtinKey('036000291452')).toBe('0036000291452');
    expect(gtinKey('0036000291452')).toBe('0036000291452');
    expect(sameGtin('036000291452', '0 036000 291452')).toBe(true);
    expect(sameGtin('36000291452', '0036000291452')).toBe(true);
    expect(sameGtin('036000291452', '4006381333931')).toBe(false);
  });
});

describe('dates', () => {
  it('parses the spellings tags use', () => {
    expect(parseDate('2019')).toEqual({ year: 2019 });
    expect(parseDate('2019-03')).toEqual({ year: 2019, month: 3 });
    expect(parseDate('2019-03-04')).toEqual({ year: 2019, month: 3, day: 4 });
    expect(parseDate('20190304')).toEqual({ year: 2019, month: 3, day: 4 });
    expect(parseDate('2019-03-04T07:00:00Z')).toEqual({ year: 2019, month: 3, day: 4 });
    expect(parseDate('2019/3/4')).toEqual({ year: 2019, month: 3, day: 4 });
    expect(parseDate('March 2019')).toBeNull();
  });
  it('knows Feb 29 only exists in leap years', () => {
    expect(isCalendarDate(2020, 2, 29)).toBe(true);
    expect(isCalendarDate(2000, 2, 29)).toBe(true);
    expect(isCalendarDate(2019, 2, 29)).toBe(false);
    expect(isCalendarDate(1900, 2, 29)).toBe(false);
    expect(isCalendarDate(2021, 4, 31)).toBe(false);
    expect(isCalendarDate(2021, 13, 1)).toBe(false);
  });
  it('gives YYYYMMDD only for a full real date: a year alone never gets a made-up day', () => {
    expect(toYyyymmdd('2020-02-29')).toBe('20200229');
    expect(toYyyymmdd('2019-02-29')).toBeNull();
    expect(toYyyymmdd('2019')).toBeNull();
    expect(toYyyymmdd('2019-03')).toBeNull();
  });
  it('reports a partial date as a warning and an impossible one as an error', () => {
    expect(dateProblem('2019')?.level).toBe('warning');
    expect(dateProblem('2019-02-29')?.level).toBe('error');
    expect(dateProblem('soon')?.level).toBe('error');
    expect(dateProblem('2019-03-04')).toBeNull();
  });
  it('says a date in local day/month order cannot be read (a spreadsheet rewrote it)', () => {
    expect(dateProblem('04/03/2021')).toEqual({
      level: 'error',
      message:
        "'04/03/2021' has day and month in a local order that cannot be told apart (a spreadsheet rewrites dates so); write it as YYYY-MM-DD",
    });
  });
  it('joins ID3v2.3 TYER and TDAT (DDMM)', () => {
    expect(fromId3v23('2019', '0403')).toBe('2019-03-04');
    expect(fromId3v23('2019')).toBe('2019');
    expect(fromId3v23('2019', 'bad')).toBe('2019');
  });
});
