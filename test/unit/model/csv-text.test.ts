import { describe, expect, it } from 'vitest';

import { CourierError } from '../../../src-main/core/errors.js';
import {
  decodeCsvBytes,
  formatCsv,
  parseCsvText,
  readCsv,
} from '../../../src-main/core/model/csv-text.js';

/** Windows-1252 bytes for text in Latin-1 plus the curly quotes, dashes and euro Excel writes. */
function cp1252(text: string): Uint8Array {
  const high: Record<string, number> = {
    '€': 0x80,
    '‘': 0x91,
    '’': 0x92,
    '“': 0x93,
    '”': 0x94,
    '–': 0x96,
    '—': 0x97,
  };
  return Uint8Array.from([...text].map((c) => high[c] ?? c.charCodeAt(0)));
}

/** Bytes as a spreadsheet writes them in one encoding. */
function saved(text: string, encoding: 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'cp1252') {
  switch (encoding) {
    case 'utf-8':
      return new Uint8Array(Buffer.from(text, 'utf8'));
    case 'utf-8-bom':
      return new Uint8Array(Buffer.from(`\ufeff${text}`, 'utf8'));
    case 'utf-16le':
      return new Uint8Array(Buffer.from(`\ufeff${text}`, 'utf16le'));
    case 'utf-16be':
      return new Uint8Array(Buffer.from(`\ufeff${text}`, 'utf16le').swap16());
    case 'cp1252':
      return cp1252(text);
  }
}

const sheet = 'isrc;title;release_date\r\nFRZ039800212;Été indien;1975-06-01\r\n';
const expected = {
  header: ['isrc', 'title', 'release_date'],
  rows: [{ line: 2, cells: ['FRZ039800212', 'Été indien', '1975-06-01'] }],
};

describe('readCsv()', () => {
  it.each(['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'cp1252'] as const)(
    'reads a semicolon sheet saved as %s, accents intact',
    (encoding) => {
      const table = readCsv(saved(sheet, encoding));
      expect(table).toMatchObject({ ...expected, delimiter: ';' });
      const read = { 'utf-8-bom': 'utf-8', cp1252: 'windows-1252' } as Record<string, string>;
      expect(table.encoding).toBe(read[encoding] ?? encoding);
    },
  );

  it('reads BOM-less UTF-16 by its NUL bytes', () => {
    const le = new Uint8Array(Buffer.from(sheet, 'utf16le'));
    const be = new Uint8Array(Buffer.from(sheet, 'utf16le').swap16());
    expect(readCsv(le)).toMatchObject({ ...expected, encoding: 'utf-16le' });
    expect(readCsv(be)).toMatchObject({ ...expected, encoding: 'utf-16be' });
  });

  it('reads BOM-less UTF-16 whose text is mostly in other scripts', () => {
    const text = `title\n${'東京の夜、'.repeat(2000)}\n`;
    expect(readCsv(new Uint8Array(Buffer.from(text, 'utf16le'))).rows[0]!.cells[0]).toBe(
      '東京の夜、'.repeat(2000),
    );
  });

  it('detects comma, semicolon and tab from the header, quotes respected', () => {
    const bytes = (text: string) => saved(text, 'utf-8');
    expect(readCsv(bytes('"a;b",c,d\n1,2,3\n')).delimiter).toBe(',');
    expect(readCsv(bytes('"a,b";c\n1;2\n')).delimiter).toBe(';');
    expect(readCsv(bytes('a\tb, c\n1\t2\n'))).toMatchObject({
      delimiter: '\t',
      header: ['a', 'b, c'],
    });
    expect(readCsv(bytes('title\nOne\n')).delimiter).toBe(',');
  });

  it('keeps quoted delimiters, doubled quotes and line breaks; drops blank rows', () => {
    const table = readCsv(
      saved('title;lyrics\r\n"a;b";"he said ""hi""\nbye"\r\n;\r\n\r\nc;\r\n', 'utf-8'),
    );
    expect(table.rows).toEqual([
      { line: 2, cells: ['a;b', 'he said "hi"\nbye'] },
      { line: 5, cells: ['c', ''] },
    ]);
  });

  it('reads the Windows-1252 characters Latin-1 lacks: curly quotes, dashes, euro', () => {
    const table = readCsv(cp1252('title\r\nL’été – “live” à 5 €\r\n'));
    expect(table.encoding).toBe('windows-1252');
    expect(table.rows[0]!.cells).toEqual(['L’été – “live” à 5 €']);
  });

  it('uses the encoding the caller declares', () => {
    // "Ã©" is how "é" in UTF-8 reads as Windows-1252: declared, the bytes are taken at their word.
    const bytes = saved('title\nÉté\n', 'utf-8');
    expect(readCsv(bytes, { encoding: 'windows-1252' }).rows[0]!.cells).toEqual(['Ã‰tÃ©']);
    expect(() =>
      readCsv(saved('title\nÉté\n', 'cp1252'), { encoding: 'utf-8', name: 'x.csv' }),
    ).toThrow(/x\.csv is not valid utf-8 text/);
  });

  it('refuses a binary file with one line, never a U+FFFD', () => {
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49,
    ]);
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0x08, 0, 0x08, 0, 0x51, 0x7a]);
    for (const bytes of [png, zip]) {
      let error: unknown;
      try {
        readCsv(bytes, { name: 'tracks.xlsx' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CourierError);
      expect((error as Error).message).toBe(
        'tracks.xlsx is not a text CSV (it holds binary data); save the sheet as "CSV UTF-8" and try again',
      );
    }
  });

  it('refuses an unclosed quote with the line it starts near', () => {
    expect(() =>
      readCsv(saved('title,isrc\n"Open,X\nNext,Y\n', 'utf-8'), { name: 'm.csv' }),
    ).toThrow(
      /^m\.csv cannot be read as CSV: a quoted cell opened before line \d+ is never closed/,
    );
  });
});

describe('formatCsv()', () => {
  it('prefixes formula-like cells with a quote and reads them back unchanged', () => {
    const cells = [
      '=SUM(A1)',
      '+33 1',
      '-5 degrees',
      '@me',
      '\tTab',
      "'=already",
      'plain',
      'a,"b"',
    ];
    const text = formatCsv([cells]);
    expect(text).toBe(`'=SUM(A1),'+33 1,'-5 degrees,'@me,'\tTab,''=already,plain,"a,""b"""\r\n`);
    expect(parseCsvText(text)).toEqual([cells]);
  });

  it('decodes a formula-safe export to the same cells in every encoding', () => {
    const rows = [['title'], ['=1+1']];
    const bytes = new TextEncoder().encode(formatCsv(rows));
    expect(decodeCsvBytes(bytes).text).toBe("title\r\n'=1+1\r\n");
    expect(readCsv(bytes).rows[0]!.cells).toEqual(['=1+1']);
  });
});
