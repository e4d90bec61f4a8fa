/**
 * Release dates as tags carry them: a year, a year and month, or a full date in several
 * spellings. Only a real calendar day becomes YYYYMMDD; a year alone never gets a made-up day.
 */

import { quoted } from './user-text.js';

/** A date as far as it is known. */
export interface PartialDate {
  year: number;
  month?: number;
  day?: number;
}

const datePattern = /^(\d{4})(?:[-/.]?(\d{1,2})(?:[-/.]?(\d{1,2}))?)?(?:[T\s].*)?$/;

/** Parses tag date text ("2019", "2019-03", "2019-03-04", "20190304", "2019-03-04T07:00:00Z"). */
export function parseDate(raw: string): PartialDate | null {
  const text = raw.trim();
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  const m = compact ?? datePattern.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const date: PartialDate = { year };
  if (m[2] !== undefined) date.month = Number(m[2]);
  if (m[3] !== undefined) date.day = Number(m[3]);
  return date;
}

/** Whether the year/month/day exist in the Gregorian calendar (Feb 29 only in leap years). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

/** YYYYMMDD for a complete, real date; null for partial, malformed or impossible dates. */
export function toYyyymmdd(raw: string): string | null {
  const date = parseDate(raw);
  if (!date || date.month === undefined || date.day === undefined) return null;
  if (!isCalendarDate(date.year, date.month, date.day)) return null;
  return (
    `${date.year}`.padStart(4, '0') +
    `${date.month}`.padStart(2, '0') +
    `${date.day}`.padStart(2, '0')
  );
}

/**
 * The date written as YYYY-MM-DD (or YYYY-MM, YYYY when only that much is known) from any
 * spelling `parseDate` reads ("2019/3/4", "20190304", "2019-03-04T07:00:00Z"); text that is no
 * date, or no real calendar date, is returned as it is (validation says why).
 */
export function normalizeDate(raw: string): string {
  const date = parseDate(raw);
  if (!date) return raw;
  const year = `${date.year}`.padStart(4, '0');
  if (date.month === undefined) return year;
  if (date.month < 1 || date.month > 12) return raw;
  const month = `${date.month}`.padStart(2, '0');
  if (date.day === undefined) return `${year}-${month}`;
  if (!isCalendarDate(date.year, date.month, date.day)) return raw;
  return `${year}-${month}-${`${date.day}`.padStart(2, '0')}`;
}

/** Why a raw date cannot be sent, with its level, or null when it is a full real date. */
export function dateProblem(raw: string): { level: 'error' | 'warning'; message: string } | null {
  const date = parseDate(raw);
  if (!date && /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(raw.trim())) {
    // What a spreadsheet writes back for a date it recognised, in the computer's local order.
    return {
      level: 'error',
      message: `${quoted(raw)} has day and month in a local order that cannot be told apart (a spreadsheet rewrites dates so); write it as YYYY-MM-DD`,
    };
  }
  if (!date)
    return { level: 'error', message: `${quoted(raw)} is not a date (expected YYYY-MM-DD)` };
  if (date.month === undefined || date.day === undefined) {
    return {
      level: 'warning',
      message: `${quoted(raw)} is not a full date; it is not sent until a day is given`,
    };
  }
  if (!isCalendarDate(date.year, date.month, date.day)) {
    return { level: 'error', message: `${quoted(raw)} is not a real calendar date` };
  }
  return null;
}

/** Combines ID3v2.3 TYER (YYYY) and TDAT (DDMM) into YYYY-MM-DD, or the year alone. */
export function fromId3v23(tyer: string, tdat?: string): string {
  const year = tyer.trim();
  const dm = tdat?.trim();
  if (dm && /^\d{4}$/.test(dm)) return `${year}-${dm.slice(2, 4)}-${dm.slice(0, 2)}`;
  return year;
}
