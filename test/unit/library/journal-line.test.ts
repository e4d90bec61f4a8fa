/**
 * The journal's lines cut into their rows' bytes without parsing them (`cutJournalLine`): every
 * row comes out as the bytes that parse to it, named by its id, whatever its strings hold; a line
 * written otherwise, or cut short, is not cut (it is parsed whole, or dropped, as before).
 */
import { describe, expect, it } from 'vitest';

import { cutJournalLine } from '../../../src-main/core/library/journal-line.js';

/** A row with the strings that could mislead a scanner: quotes, backslashes, brackets, UTF-8. */
function trickyRow(id: string, title: string) {
  return {
    id,
    size: 1234,
    lastModified: 1_700_000_000_000,
    status: 'ready',
    draft: {
      file: `Masters/{A}/[01] ${title}.flac`,
      title: { value: title, source: { kind: 'manual' } },
      artists: {
        value: [
          { name: 'Björk, "Guðmundsdóttir"', role: 'main' },
          { name: '日本 \\ 🎵 }]', role: 'feat' },
        ],
        source: { kind: 'tag', tag: 'ARTIST', joinedWith: '/' },
      },
    },
    original: 'draft',
    readFindings: [{ level: 'warning', message: 'a "quoted" \\ back\\\\slash, and a ] and a }' }],
  };
}

/** A line as `patchLibrarySession` writes it, as bytes. */
function writtenLine(rows: unknown[], rest: Record<string, unknown> = {}) {
  const line = {
    epoch: '5f0c2a9e-2b7d-4c1e-9a43-0d6f1f7b8e21',
    seq: 42,
    patch: { rows, removed: ['gone-1'], ...rest },
    files: [{ id: 'r1', path: '/Masters/Ü/01.flac' }],
  };
  return { line, bytes: Buffer.from(`${JSON.stringify(line)}\n`) };
}

describe('cutJournalLine', () => {
  const titles = [
    'Plain',
    'He said "hi"',
    'C:\\path\\',
    'ends in backslash \\',
    '}]{[,',
    'Ωμέγα 🎧',
  ];
  const rows = titles.map((title, i) => trickyRow(`row-${i}`, title));

  it('gives each row as the bytes that parse to it, named by its id, and the rest of the line', () => {
    const { line, bytes } = writtenLine(rows);
    const cut = cutJournalLine(bytes, 0, bytes.length - 1)!;
    expect(cut.rows.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    expect(cut.rows.map((row) => JSON.parse(row.bytes.toString('utf8')))).toEqual(rows);
    expect(JSON.parse(cut.rest)).toEqual({ ...line, patch: { ...line.patch, rows: [] } });
  });

  it('cuts a line of a save with no rows (only removed), and one in the middle of the journal', () => {
    const empty = writtenLine([], { order: ['a', 'b'] });
    expect(cutJournalLine(empty.bytes, 0, empty.bytes.length - 1)).toEqual({
      rest: JSON.stringify(empty.line),
      rows: [],
    });
    const second = writtenLine(rows.slice(0, 2));
    const journal = Buffer.concat([empty.bytes, second.bytes]);
    const cut = cutJournalLine(journal, empty.bytes.length, journal.length - 1)!;
    expect(cut.rows.map((row) => JSON.parse(row.bytes.toString('utf8')))).toEqual(rows.slice(0, 2));
  });

  it('leaves a line written otherwise to be parsed whole', () => {
    const other = [
      // Keys in another order, spaces, a row whose id does not come first, a row not an object.
      `{"seq":1,"epoch":"e","patch":{"rows":[],"removed":[]},"files":[]}`,
      `{"epoch":"e", "seq":1,"patch":{"rows":[],"removed":[]},"files":[]}`,
      `{"epoch":"e","seq":1,"patch":{"rows":[{"size":1,"id":"a"}],"removed":[]},"files":[]}`,
      `{"epoch":"e","seq":1,"patch":{"rows":["a"],"removed":[]},"files":[]}`,
      `{"epoch":"e","seq":1,"patch":{"rows":[{"id":7}],"removed":[]},"files":[]}`,
    ];
    for (const text of other) {
      const bytes = Buffer.from(text);
      expect(cutJournalLine(bytes, 0, bytes.length), text).toBeUndefined();
    }
  });

  it('never gives a line cut short as a whole one: its rows are not cut, or the rest does not parse', () => {
    const { bytes } = writtenLine(rows.slice(0, 3));
    const whole = bytes.length - 1;
    for (let end = 0; end < whole; end++) {
      const cut = cutJournalLine(bytes, 0, end);
      if (cut) expect(() => JSON.parse(cut.rest), `cut at ${end}`).toThrow();
    }
  });
});
