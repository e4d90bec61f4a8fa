import { describe, expect, it } from 'vitest';

import type { CourierApi } from '../../src-main/ipc/contract.js';
import { DeliverState } from './deliver-state.svelte.js';
import { libraryWith } from './fake-library.js';

async function deliverOver(files: string[]) {
  const { library, api } = await libraryWith(Object.fromEntries(files.map((f) => [f, {}])));
  return new DeliverState(api as unknown as CourierApi, library);
}

describe('DeliverState', () => {
  describe('loadMapping()', () => {
    it("shows the checker's message for a mapping that skips a column, keeping the builder as it was", async () => {
      const deliver = await deliverOver(['A/CAT1_x_Song.flac']);
      deliver.loadMapping(
        "mapping:\n  - separator: '-'\n  - column_0: outer_id\n  - column_2: title\n",
      );
      expect(deliver.mappingError).toMatch(
        /^That mapping file can't be used: the mapping skips column_1/,
      );
      expect([deliver.separator, deliver.columns]).toEqual(['_', ['outer_id', 'title']]);
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
