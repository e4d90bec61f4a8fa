import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src-main/core/errors.js';
import {
  applyFileNameMapping,
  builderColumns,
  extraPartsNote,
  type FileNameMapping,
  mappingFromBuilder,
  mappingFromOptions,
  mappingProblem,
  mappingToYaml,
  matchFileNames,
  parseMappingYaml,
  suggestBuilder,
  unfitFileNames,
} from '../../../src-main/core/model/filename-mapping.js';

const yaml = (...entries: string[]) => `mapping:\n${entries.map((e) => `  - ${e}\n`).join('')}`;

/** The UsageError message `run` throws (fails when it throws anything else, or nothing). */
function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('filename mapping', () => {
  describe('the three inputs', () => {
    it('give the same mapping from YAML, from --separator/--columns and from the builder', () => {
      const expected: FileNameMapping = { separator: ' - ', columns: ['outer_id', 'title'] };
      expect(
        parseMappingYaml(yaml("separator: ' - '", 'column_0: outer_id', 'column_1: title')),
      ).toEqual(expected);
      expect(mappingFromOptions(' - ', 'outer_id, title')).toEqual(expected);
      expect(mappingFromBuilder(' - ', ['outer_id', 'title'])).toEqual(expected);
    });

    it('read columns in number order, whatever the order of the entries', () => {
      expect(
        parseMappingYaml(yaml('column_1: title', 'column_0: outer_id', "separator: '_'")),
      ).toEqual({ separator: '_', columns: ['outer_id', 'title'] });
    });

    it('keep a skipped column as the service does, rather than refusing or closing it up', () => {
      const fromYaml = parseMappingYaml(
        yaml("separator: '_'", 'column_0: outer_id', 'column_2: title'),
      );
      expect(fromYaml).toEqual({
        separator: '_',
        columns: ['outer_id', 'title'],
        positions: [0, 2],
      });
      expect(mappingFromOptions('_', 'outer_id,,title')).toEqual(fromYaml);
      expect(applyFileNameMapping('A1_skipped_Song.wav', fromYaml)).toEqual({
        ok: true,
        values: { outer_id: 'A1', title: 'Song' },
      });
      expect(parseMappingYaml(mappingToYaml(fromYaml))).toEqual(fromYaml);
    });
  });

  describe('refusals of the mapping, as one-line UsageErrors', () => {
    it('refuses a mapping without an outer_id column, from every input', () => {
      expect(usageMessage(() => parseMappingYaml(yaml("separator: '_'", 'column_0: title')))).toBe(
        'the mapping is unusable: no column takes outer_id, which the service needs from each file name',
      );
      expect(usageMessage(() => mappingFromOptions('_', 'title,isrc'))).toMatch(/outer_id/);
      expect(mappingProblem(mappingFromBuilder('_', ['title']))).toMatch(
        /no column takes outer_id/,
      );
    });

    it('condenses a YAML syntax error to one line with its line and column', () => {
      const message = usageMessage(() =>
        parseMappingYaml('mapping:\n  - separator: [\n  - column_0: outer_id\n'),
      );
      expect(message).not.toContain('\n');
      expect(message).toMatch(/^the mapping is not valid YAML \(line 3, column 3: .+\)$/);
      expect(usageMessage(() => parseMappingYaml('mapping:\n  - a: 1\n    a: 2\n'))).toMatch(
        /^the mapping is not valid YAML \(line 3, column 5: Map keys must be unique\)$/,
      );
    });

    it.each([
      ['no mapping list', 'columns: []', /top-level `mapping:` list/],
      ['an empty document', '', /top-level `mapping:` list/],
      ['no separator', yaml('column_0: outer_id'), /no separator/],
      [
        'two separators',
        yaml("separator: '_'", "separator: '-'", 'column_0: outer_id'),
        /more than one separator/,
      ],
      ['an empty separator', yaml("separator: ''", 'column_0: outer_id'), /non-empty string/],
      ['a number as separator', yaml('separator: 1', 'column_0: outer_id'), /non-empty string/],
      ['an unknown key', yaml("separator: '_'", 'col0: outer_id'), /unknown key 'col0'/],
      [
        'an unknown field',
        yaml("separator: '_'", 'column_0: outer_id', 'column_1: genre'),
        /'genre'/,
      ],
      ['a non-string field', yaml("separator: '_'", 'column_0: [outer_id]'), /allowed fields/],
      [
        'a two-key entry',
        'mapping:\n  - separator: _\n    column_0: outer_id\n',
        /exactly one key/,
      ],
      [
        'a column twice',
        yaml("separator: '_'", 'column_0: outer_id', 'column_00: title'),
        /column_0 twice/,
      ],
      [
        'a field twice',
        yaml("separator: '_'", 'column_0: outer_id', 'column_1: outer_id'),
        /two columns/,
      ],
    ])('refuses %s', (_name, text, message) => {
      expect(usageMessage(() => parseMappingYaml(text))).toMatch(message);
      expect(usageMessage(() => parseMappingYaml(text))).not.toContain('\n');
    });

    it('refuses --columns it cannot read', () => {
      expect(usageMessage(() => mappingFromOptions('_', 'outer_id,album'))).toMatch(/'album'/);
      expect(mappingFromOptions('_', 'outer_id,')).toEqual(mappingFromOptions('_', 'outer_id'));
      expect(usageMessage(() => mappingFromOptions('', 'outer_id'))).toMatch(/separator/);
    });

    it('shows a skipped part in the builder as an ignored column, and back', () => {
      const gap = parseMappingYaml(yaml("separator: '_'", 'column_1: outer_id', 'column_3: title'));
      expect(builderColumns(gap)).toEqual(['ignore', 'outer_id', 'ignore', 'title']);
      expect(mappingFromBuilder('_', builderColumns(gap))).toEqual(gap);
      expect(mappingFromBuilder('_', ['ignore', 'outer_id', 'ignore', 'title'])).toEqual({
        separator: '_',
        columns: ['outer_id', 'title'],
        positions: [1, 3],
      });
      expect(builderColumns(mappingFromBuilder('_', ['outer_id', 'isrc']))).toEqual([
        'outer_id',
        'isrc',
      ]);
      const far = parseMappingYaml(yaml("separator: '_'", 'column_40: outer_id'));
      expect(usageMessage(() => builderColumns(far))).toMatch(/column_40, beyond the 16 columns/);
    });
  });

  describe('file names', () => {
    const mapping = mappingFromOptions('_', 'outer_id,release_date,title');

    it('accepts more parts than the mapping reads, as the service does', () => {
      expect(applyFileNameMapping('x/ID1_20240229_Song_extra.flac', mapping)).toEqual({
        ok: true,
        values: { outer_id: 'ID1', release_date: '20240229', title: 'Song' },
      });
    });

    it('lists each name the service would refuse, with its path and why', () => {
      expect(
        unfitFileNames(
          [
            'a/ID1_20240101_One.wav',
            'a/ID2_20230229_Two.wav',
            'a/ID3_00500101_Three.wav',
            'a/ID4_20240101.wav',
            'a/ID5_20240101_ .wav',
            'a/.ID6_20240101_Six.wav',
            'b/ID1_20240102_Again.wav',
          ],
          mapping,
        ),
      ).toEqual([
        {
          path: 'a/ID2_20230229_Two.wav',
          message: "'ID2_20230229_Two' has release_date '20230229', not a date YYYYMMDD (column_1)",
        },
        {
          path: 'a/ID3_00500101_Three.wav',
          message:
            "'ID3_00500101_Three' has release_date '00500101', not a date YYYYMMDD (column_1)",
        },
        {
          path: 'a/ID4_20240101.wav',
          message: "'ID4_20240101' has 2 part(s) separated by '_', the mapping expects 3",
        },
        { path: 'a/ID5_20240101_ .wav', message: "'ID5_20240101_ ' has an empty title (column_2)" },
        {
          path: 'a/.ID6_20240101_Six.wav',
          message:
            "'.ID6_20240101_Six.wav' starts with '.', and the service skips hidden files; rename it",
        },
        {
          path: 'b/ID1_20240102_Again.wav',
          message:
            "'ID1_20240102_Again' gives outer_id 'ID1' like 'ID1_20240101_One', and the service keeps one entry per outer_id",
        },
      ]);
    });

    it('matches names as the bucket keys hold them (NFC)', () => {
      const match = matchFileNames(['Cafe\u0301_x.wav'], mappingFromOptions('_', 'outer_id'));
      expect(match[0]).toEqual({ ok: true, values: { outer_id: 'Caf\u00e9' } });
    });
  });

  describe('mappingToYaml()', () => {
    it('writes a document every input reads back unchanged', () => {
      for (const separator of [' - ', '_', '#', "'", '\n', '\t', ' ']) {
        const mapping = mappingFromBuilder(separator, ['artist_name', 'outer_id']);
        expect(parseMappingYaml(mappingToYaml(mapping))).toEqual(mapping);
      }
      expect(mappingToYaml(mappingFromOptions(' - ', 'artist_name,outer_id'))).toBe(
        "mapping:\n  - separator: ' - '\n  - column_0: artist_name\n  - column_1: outer_id\n",
      );
    });
  });
});

describe('the Deliver screen builder', () => {
  it('opens with one column per part of the names, guessing what it can', () => {
    const names = [
      'Album/MAP-001_First Light_GBAYE2300101_20230102_Mara Quinn.wav',
      'Album/MAP-002_Second Wind_GBAYE2300102_20230102_Mara Quinn.wav',
      'Album/MAP-003_Third_GBAYE2300103_20230102_Ola.wav',
    ];
    expect(suggestBuilder(names, '_')).toEqual({
      separator: '_',
      columns: ['outer_id', 'title', 'isrc', 'release_date', 'ignore'],
    });
  });

  it('finds the separator the names use when the current one does not split them', () => {
    const names = ['01 - Dawn - Mara Quinn.mp3', '02 - Noon - Mara Quinn.mp3'];
    expect(suggestBuilder(names, '_')).toEqual({
      separator: ' - ',
      columns: ['outer_id', 'title', 'ignore'],
    });
  });

  it('says per file what a name split in more parts than columns loses', () => {
    expect(extraPartsNote('A/ID1_Don_t Stop.mp3', '_', 2)).toBe(
      "'ID1_Don_t Stop' has 3 parts, the mapping 2 column(s): 't Stop' after column 2 is not sent (add a column, or set it to ignore)",
    );
    expect(extraPartsNote('A/ID1_Title.mp3', '_', 2)).toBeUndefined();
    expect(extraPartsNote('A/ID1_Title.mp3', '_', 4)).toBeUndefined();
  });

  it('fits names with more parts than the mapping reads, as the service does', () => {
    const mapping = mappingFromBuilder('_', ['outer_id', 'title']);
    expect(matchFileNames(['A_B_C_D_E.mp3'], mapping)).toEqual([
      { ok: true, values: { outer_id: 'A', title: 'B' } },
    ]);
  });
});
