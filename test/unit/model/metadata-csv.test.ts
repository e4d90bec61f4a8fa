import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src-main/core/errors.js';
import { formatCsv, readCsv } from '../../../src-main/core/model/csv-text.js';
import { draftToTrack } from '../../../src-main/core/model/ingestion-body.js';
import { metadataCells, metadataColumnIds } from '../../../src-main/core/model/metadata-columns.js';
import {
  guessMapping,
  mergeCsv,
  mergeFindings,
  readMetadataCsv,
  strictMapping,
} from '../../../src-main/core/model/metadata-csv.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { validateDelivery } from '../../../src-main/core/model/validate.js';
import { draft, fromTag } from './helpers.js';

const csv = (text: string) => readCsv(new TextEncoder().encode(text));

/** Merges a CSV the way `courier deliver --metadata` does: every column must be known. */
function cliMerge(drafts: DraftTrack[], text: string) {
  const table = csv(text);
  return mergeCsv(drafts, table, strictMapping(table.header, 'metadata.csv'));
}

describe('the column vocabulary', () => {
  it("accepts the grid export's ids, the grid's aliases and the CLI's old names", () => {
    const header = ['path', 'outer_id', 'artist', 'album_title', 'Track Title', 'EAN', 'Disc No'];
    expect(guessMapping(header)).toEqual([
      'file',
      'outer_id',
      'artists',
      'album',
      'title',
      'upc',
      'disk',
    ]);
    expect(guessMapping(['primary_media', 'Release date', 'whatever'])).toEqual([
      'file',
      'release_date',
      '',
    ]);
  });

  it('refuses an unknown column for the CLI, naming it and the accepted names', () => {
    let error: unknown;
    try {
      strictMapping(['isrc', 'title', 'mood', 'bpm'], 'metadata.csv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^metadata\.csv: unknown column\(s\) 'mood', 'bpm'; rename them to one of /,
    );
    expect(message).toContain('file/path/');
    expect(message).not.toContain('\n');
  });

  it('refuses a semicolon header read as one column, instead of ignoring it', () => {
    // What a European spreadsheet writes, read as if it were comma-separated.
    expect(() => strictMapping(['isrc;title;release_date'], 'm.csv')).toThrow(
      "m.csv: unknown column(s) 'isrc;title;release_date'",
    );
    // Read as it is, its delimiter is detected.
    expect(strictMapping(csv('isrc;title;release_date\n').header)).toEqual([
      'isrc',
      'title',
      'release_date',
    ]);
  });

  it('refuses a row with more cells than the header, or an empty file', () => {
    const bytes = new TextEncoder().encode('file,title\nA/01.flac,One,Extra\n');
    expect(() => readMetadataCsv(bytes, { name: 'm.csv' })).toThrow(
      'm.csv row 2 has 3 cells but the header names 2 columns; check the delimiter and quotes',
    );
    expect(() => readMetadataCsv(new Uint8Array(), { name: 'm.csv' })).toThrow(
      'm.csv is empty; it needs a header row naming its columns',
    );
  });

  it('refuses two columns meaning the same field', () => {
    expect(() => strictMapping(['file', 'path', 'title'], 'm.csv')).toThrow(
      "m.csv: columns 'file' and 'path' both give file; keep one of them",
    );
  });
});

describe('mergeCsv()', () => {
  const library = () => [
    draft('CD1/06 Foghorn Blues.mp3', { outerId: fromTag('FOG'), isrc: fromTag('GBAYE2100006') }),
    draft('CD2/04 Ebb.m4a', { outerId: fromTag('EBB'), isrc: fromTag('GBAYE2100006') }),
    draft('CD2/05 Flow.m4a', { outerId: fromTag('FLOW'), isrc: fromTag('GBAYE2100007') }),
  ];

  it('matches a row by its file first: another track with the same ISRC is left alone', () => {
    const merge = cliMerge(
      library(),
      'file,isrc,title\nCD1/06 Foghorn Blues.mp3,GBAYE2100006,Live\n',
    );
    expect(merge.matched).toBe(1);
    expect(merge.drafts.map((d) => d.title?.value)).toEqual(['Live', 'Yesterday', 'Yesterday']);
  });

  it('matches by outer_id, then by an ISRC only one track carries; NFC and backslashes in paths', () => {
    const merge = cliMerge(
      library(),
      'path,outer_id,isrc,title\n,EBB,,By id\n,,gb-aye-21-00007,By ISRC\n"CD1\\06 Foghorn Blues.mp3",,,By path\n',
    );
    expect(merge.drafts.map((d) => d.title?.value)).toEqual(['By path', 'By id', 'By ISRC']);
    const nfd = [draft('Été/01.flac'.normalize('NFD'))];
    expect(cliMerge(nfd, 'file,title\nÉté/01.flac,T\n').matched).toBe(1);
  });

  it("matches the grid's paths (dropped folder first) to the CLI's (relative to it), and back", () => {
    const cli = [draft('03 Harbour.m4a'), draft('Bonus/03 Harbour.m4a')];
    const merge = cliMerge(
      cli,
      'file,title\nNight Shift/03 Harbour.m4a,A\nNight Shift/Bonus/03 Harbour.m4a,B\n',
    );
    expect(merge.drafts.map((d) => d.title?.value)).toEqual(['A', 'B']);
    const grid = [draft('Night Shift/01.flac'), draft('Night Shift/02.flac')];
    expect(cliMerge(grid, 'file,title\n02.flac,Two\n').drafts[1]!.title?.value).toBe('Two');
    // A bare name two folders share says nothing about which.
    const two = [draft('CD1/01.flac'), draft('CD2/01.flac')];
    expect(cliMerge(two, 'file,title\n01.flac,X\n').ambiguous).toHaveLength(1);
  });

  it('changes nothing for a row that matches several tracks, and names the row', () => {
    const merge = cliMerge(library(), 'isrc,title\nGBAYE2100006,Which one?\n');
    expect(merge.changes).toEqual([]);
    expect(merge.drafts.map((d) => d.title?.value)).toEqual([
      'Yesterday',
      'Yesterday',
      'Yesterday',
    ]);
    expect(mergeFindings(merge, 'metadata.csv')).toEqual([
      {
        level: 'warning',
        message:
          'metadata.csv row 2 (ISRC GBAYE2100006) matches 2 tracks (CD1/06 Foghorn Blues.mp3, CD2/04 Ebb.m4a); nothing from it was applied: add a file column to say which',
      },
    ]);
  });

  it('applies an ambiguous row to the track chosen for it, or to none when it is skipped', () => {
    const table = csv('isrc,title\nGBAYE2100006,Which one?\nGBAYE2100007,Flow (Edit)\n');
    const mapping = strictMapping(table.header);
    const choose = (file: string | null) =>
      mergeCsv(library(), table, mapping, new Map([[2, file]]));
    const chosen = choose('CD2/04 Ebb.m4a');
    expect(chosen.drafts.map((d) => d.title?.value)).toEqual([
      'Yesterday',
      'Which one?',
      'Flow (Edit)',
    ]);
    expect([chosen.matched, chosen.ambiguous.length, chosen.skipped.length]).toEqual([2, 0, 0]);
    const skipped = choose(null);
    expect(skipped.changes.map((c) => c.file)).toEqual(['CD2/05 Flow.m4a']);
    expect(skipped.skipped).toEqual([
      { line: 2, key: 'ISRC GBAYE2100006', tracks: ['CD1/06 Foghorn Blues.mp3', 'CD2/04 Ebb.m4a'] },
    ]);
    // A choice of a file the row does not match changes nothing: the row stays ambiguous.
    const wrong = choose('CD2/05 Flow.m4a');
    expect([wrong.matched, wrong.ambiguous.length]).toEqual([1, 1]);
  });

  it('keeps a code a spreadsheet stripped of its leading zeros, and says so', () => {
    const zeros = [
      draft('A/01.flac', {
        outerId: fromTag('00417'),
        album: {
          upc: fromTag('0036000291452'),
          catalogNumber: fromTag('0042'),
          trackPosition: fromTag('01'),
        },
      }),
    ];
    const merge = cliMerge(
      zeros,
      'file,outer_id,upc,catalog_number,track\nA/01.flac,417,36000291452,42,1\n',
    );
    expect(merge.changes).toEqual([]);
    expect(merge.drafts[0]).toBe(zeros[0]);
    expect(merge.notes.map((n) => n.message)).toEqual([
      "outer_id '417' is '00417' without its leading zeros (a spreadsheet drops them); '00417' is kept",
      "UPC '36000291452' is '0036000291452' without its leading zeros (a spreadsheet drops them); '0036000291452' is kept",
      "Catalog number '42' is '0042' without its leading zeros (a spreadsheet drops them); '0042' is kept",
    ]);
  });

  it('validates each new value with the rules of validation: an 11-digit UPC says what happened', () => {
    const merge = cliMerge(
      library(),
      'file,upc,release_date\nCD2/05 Flow.m4a,36000291452,04/03/2021\nCD2/04 Ebb.m4a,036000291452,2021-03-04\n',
    );
    expect(merge.changes.map((c) => [c.file, c.column, c.findings.map((f) => f.message)])).toEqual([
      [
        'CD2/05 Flow.m4a',
        'upc',
        [
          "UPC/EAN '36000291452' has 11 digits: a spreadsheet that read it as a number dropped its leading zero; the UPC is 036000291452 (type the column as text, or use .xlsx)",
          "UPC/EAN '36000291452' is 036000291452 (as on CD2/04 Ebb.m4a) written without its leading zeros, as a spreadsheet writes it; the same album: write it as 036000291452",
        ],
      ],
      [
        'CD2/05 Flow.m4a',
        'release_date',
        [
          "release date '04/03/2021' has day and month in a local order that cannot be told apart (a spreadsheet rewrites dates so); write it as YYYY-MM-DD",
        ],
      ],
      ['CD2/04 Ebb.m4a', 'upc', []],
      ['CD2/04 Ebb.m4a', 'release_date', []],
    ]);
  });

  it('never erases with an empty cell and reports rows that match nothing', () => {
    const merge = cliMerge(library(), 'outer_id,title,upc\nFOG,,0012345678905\nNOPE,X,\n');
    expect(merge.drafts[0]!.title?.value).toBe('Yesterday');
    expect(merge.drafts[0]!.album?.upc).toEqual({
      value: '0012345678905',
      source: { kind: 'csv', column: 'upc' },
    });
    expect(mergeFindings(merge, 'm.csv').map((f) => f.message)).toEqual([
      'm.csv row 3 (outer_id NOPE) matches no track; nothing from it was applied',
    ]);
  });

  it('leaves CSV values to validation, track by track: a bad ISRC or date is a finding', () => {
    const merge = cliMerge(
      library(),
      'file,isrc,release_date\nCD2/05 Flow.m4a,NOT-AN-ISRC,2021-02-30\n',
    );
    const findings = validateDelivery(merge.drafts)[2]!;
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'error', field: 'isrc' }),
        expect.objectContaining({ level: 'error', field: 'release_date' }),
      ]),
    );
    expect(validateDelivery(merge.drafts)[0]!.filter((f) => f.level === 'error')).toEqual([]);
  });

  it('gives the CLI exactly what the grid exported', () => {
    const full = draft('A/01 Été indien.flac', {
      outerId: fromTag('FRZ039800212'),
      title: fromTag('=Été indien, "live"'),
      isrc: fromTag('FRZ039800212'),
      releaseDate: fromTag('1975-06-01'),
      lyrics: fromTag('Tu sais, je n’ai jamais été aussi heureux\nque ce matin-là'),
      artists: fromTag([{ name: 'Joe Dassin', role: 'Main' }]),
      customerTags: fromTag([{ category: 'Mood', tag: 'Nostalgic' }]),
      album: {
        title: fromTag('Le Jardin du Luxembourg'),
        upc: fromTag('5099749189126'),
        releaseDate: fromTag('1975-06-01'),
        type: fromTag('Album'),
        trackPosition: fromTag('1'),
        diskNumber: fromTag('1'),
      },
    });
    // What the grid's "Export CSV" writes: the column ids, each cell's full text.
    const exported = formatCsv([
      [...metadataColumnIds],
      metadataColumnIds.map((id) => metadataCells[id].get(full)),
    ]);
    const bare = draft('A/01 Été indien.flac', { title: undefined, artists: undefined });
    const merge = cliMerge([bare], exported);
    expect(draftToTrack(merge.drafts[0]!)).toEqual(draftToTrack(full));
  });
});
