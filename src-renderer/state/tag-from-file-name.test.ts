import { describe, expect, it } from 'vitest';

import { libraryWith } from '../../test/fakes/fake-library.js';
import { compilePattern } from '../lib/filename-pattern.js';
import { tagFromFileName } from './tag-from-file-name.js';

describe('tag from file name', () => {
  it('fills only empty fields unless asked to overwrite', async () => {
    const { library } = await libraryWith({
      'Night Shift/03 - Lena Park - Harbour.flac': { title: 'Harbour (tag)' },
    });
    const keep = tagFromFileName(library.rows, '%track% - %artist% - %title%', false);
    if (!keep.ok) throw new Error(keep.message);
    expect(keep.preview[0]!.values).toEqual([
      { column: 'track', value: '03', applied: true },
      { column: 'artists', value: 'Lena Park', applied: true },
      { column: 'title', value: 'Harbour', applied: false },
    ]);
    library.applyEdits('Tag from file name', keep.edits);
    const draft = library.rows[0]!.draft;
    expect(draft.title?.value).toBe('Harbour (tag)');
    expect(draft.album?.trackPosition).toEqual({ value: '03', source: { kind: 'file-name' } });

    const overwrite = tagFromFileName(library.rows, '%track% - %artist% - %title%', true);
    expect(overwrite.ok && overwrite.edits[0]!.draft.title?.value).toBe('Harbour');
  });

  it('reaches into folders and reports names that do not fit', async () => {
    const { library } = await libraryWith({ 'Night Shift/07 Song.mp3': {}, 'loose.mp3': {} });
    const result = tagFromFileName(library.rows, '%album%/%track% %title%', false);
    expect(result.ok && result.preview.map((p) => p.values?.map((v) => v.value))).toEqual([
      undefined,
      ['Night Shift', '07', 'Song'],
    ]);
  });

  it('explains an unusable pattern', () => {
    expect(compilePattern('%nope%')).toMatchObject({ ok: false, message: /not a field/ });
    expect(compilePattern('%title% %title%')).toMatchObject({ ok: false });
  });
});
