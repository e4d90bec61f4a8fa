import { describe, expect, it } from 'vitest';

import { ok } from '../../src-main/ipc/contract.js';
import { fakeApi, libraryWith } from '../../test/fakes/fake-library.js';
import { DuplicatesState } from './duplicates-state.svelte.js';

describe('find duplicate audio', () => {
  it('shows the groups main found as rows, and forgets them when the library changes', async () => {
    const api = fakeApi();
    const { library } = await libraryWith(
      { 'A/01.flac': { title: 'One' }, 'B/copy.flac': { title: 'Copy' }, 'A/02.flac': {} },
      api,
    );
    const asked: string[][] = [];
    api.findDuplicateAudio = async ({ ids }) => {
      asked.push(ids);
      return ok({ groups: [['id:A/01.flac', 'id:B/copy.flac']], unreadable: [], bytes: 10 });
    };
    const duplicates = new DuplicatesState(api, library);
    expect(duplicates.groups).toBeNull();
    await duplicates.find();
    expect(asked[0]).toHaveLength(3);
    expect(duplicates.groups!.map((g) => g.map((row) => row.draft.file))).toEqual([
      ['A/01.flac', 'B/copy.flac'],
    ]);
    library.setExcluded(['id:A/02.flac'], true);
    expect(duplicates.groups).toBeNull();
  });
});
