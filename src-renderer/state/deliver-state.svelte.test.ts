import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { DeliverState } from './deliver-state.svelte.js';

async function deliverOver(files: string[]) {
  const { library, api } = await libraryWith(Object.fromEntries(files.map((f) => [f, {}])));
  return new DeliverState(api, library);
}

describe('DeliverState', () => {
  describe('loadMapping()', () => {
    it('shows a part the mapping skips as an ignored column, and sends it skipped', async () => {
      const deliver = await deliverOver(['A/CAT1_x_Song.flac']);
      deliver.loadMapping(
        "mapping:\n  - separator: '_'\n  - column_0: outer_id\n  - column_2: title\n",
      );
      expect(deliver.mappingError).toBe('');
      expect([deliver.separator, deliver.columns]).toEqual(['_', ['outer_id', 'ignore', 'title']]);
      expect(deliver.preview.rows[0]!.match).toEqual({
        ok: true,
        values: { outer_id: 'CAT1', title: 'Song' },
      });
      expect(deliver.mappingYaml()).toContain('column_2: title');
    });

    it('refuses a mapping without outer_id and a YAML error, each in one line', async () => {
      const deliver = await deliverOver(['A/CAT1_Song.flac']);
      deliver.loadMapping("mapping:\n  - separator: '_'\n  - column_0: title\n");
      expect(deliver.mappingError).toMatch(/no column takes outer_id/);
      deliver.loadMapping('mapping:\n  - separator: [\n');
      expect(deliver.mappingError).toMatch(/not valid YAML \(line \d+, column \d+: /);
      expect(deliver.mappingError).not.toContain('\n');
    });

    it('loads a usable mapping into the builder', async () => {
      const deliver = await deliverOver(['A/CAT1 - Song.flac']);
      deliver.loadMapping(
        "mapping:\n  - separator: ' - '\n  - column_1: title\n  - column_0: outer_id\n",
      );
      expect(deliver.mappingError).toBe('');
      expect([deliver.separator, deliver.columns]).toEqual([' - ', ['outer_id', 'title']]);
      expect(deliver.preview.rows[0]!.match).toEqual({
        ok: true,
        values: { outer_id: 'CAT1', title: 'Song' },
      });
    });
  });

  describe('openBuilder()', () => {
    it('opens with one column per part of the names, then keeps what the user set', async () => {
      const deliver = await deliverOver([
        'A/MAP-001_First Light_GBAYE2300101_20230102_Mara Quinn.wav',
        'A/MAP-002_Second Wind_GBAYE2300102_20230102_Mara Quinn.wav',
      ]);
      deliver.openBuilder();
      expect(deliver.columns).toEqual(['outer_id', 'title', 'isrc', 'release_date', 'ignore']);
      expect(deliver.unfitCount).toBe(0);
      deliver.columns[4] = 'artist_name';
      deliver.openBuilder();
      expect(deliver.columns[4]).toBe('artist_name');
    });

    it('says per file what a name with more parts than columns does not send', async () => {
      const deliver = await deliverOver([
        'A/ID1_Title.wav',
        'A/ID3_Other.wav',
        'A/ID2_Don_t Stop.wav',
      ]);
      deliver.openBuilder();
      expect(deliver.columns).toEqual(['outer_id', 'title']);
      const notes = Object.fromEntries(deliver.preview.rows.map((r) => [r.name, r.note]));
      expect(deliver.preview.rows.every((r) => r.match?.ok)).toBe(true);
      expect(notes).toEqual({
        'ID1_Title.wav': undefined,
        'ID3_Other.wav': undefined,
        'ID2_Don_t Stop.wav':
          "'ID2_Don_t Stop' has 3 parts, the mapping 2 column(s): 't Stop' after column 2 is not sent (add a column, or set it to ignore)",
      });
    });
  });

  describe('preview', () => {
    it('marks the names the service would refuse, with the reason', async () => {
      const deliver = await deliverOver(['A/CAT1_One.flac', 'B/CAT1_Two.flac', 'A/CAT3.flac']);
      expect(deliver.preview.rows.map((r) => r.match?.ok)).toEqual([true, false, false]);
      expect(deliver.unfitCount).toBe(2);
      deliver.columns = ['title'];
      expect(deliver.preview.problem).toMatch(/no column takes outer_id/);
    });
  });
});
