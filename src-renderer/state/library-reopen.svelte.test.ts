import { describe, expect, it } from 'vitest';

import { ok } from '../../src-main/ipc/contract.js';
import { fakeApi, libraryWith } from '../../test/fakes/fake-library.js';
import { columns } from './columns.js';
import { LibraryState } from './library-state.svelte.js';

describe('a saved library reopened', () => {
  it('shows its first rows at once, the rest after, and marks files main finds gone as they come', async () => {
    const { library: before, api: saving } = await libraryWith({
      'A/01.flac': { title: 'One' },
      'A/02.flac': { title: 'Two' },
      'A/03.flac': { title: 'Three' },
    });
    await before.saveNow();
    const session = saving.saved.session!;
    let sendRest = () => {};
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const api = fakeApi(saving.saved, {
      // Main answers with the first page, its files not checked yet; the rest by `library:rows`.
      async loadLibrary() {
        const rows = session.rows.slice(0, 2);
        return ok({
          session: { ...session, rows },
          total: 3,
          load: 'load-1',
          missing: [],
          checking: 3,
          previous: null,
        });
      },
      async libraryRows({ offset }) {
        await rest;
        return ok({ rows: session.rows.slice(offset) });
      },
    });
    const library = new LibraryState(api, () => {
      throw new Error('no reading after a restart');
    });
    const loading = library.load();
    await expect
      .poll(() => library.rows.map((row) => row.draft.title?.value))
      .toEqual(['One', 'Two']);
    expect(library.filesChecking).toBe(3);
    // A check finds the third file gone before its row is here, and the first changed.
    api.emit('library:files-checked', {
      load: 'load-1',
      missing: ['id:A/03.flac', 'id:A/01.flac'],
      checked: 3,
      total: 3,
    });
    // A check of another load (a page opened before) says nothing of this one.
    api.emit('library:files-checked', {
      load: 'load-0',
      missing: ['id:A/02.flac'],
      checked: 1,
      total: 1,
    });
    expect(library.filesChecking).toBe(0);
    sendRest();
    await loading;
    await expect
      .poll(() => library.rows.map((row) => [row.draft.title?.value, !!row.missing]))
      .toEqual([
        ['One', true],
        ['Two', false],
        ['Three', true],
      ]);
    await library.validated();
    expect(library.findings.get('id:A/01.flac')!.at(-1)!.message).toMatch(/gone or changed/);

    // Marking rows missing is the page's own: a save after it sends only the user's edit.
    const sent = api.patches.length;
    library.setCell(['id:A/02.flac'], columns.title, 'Deux');
    await library.saveNow();
    expect(api.patches.slice(sent).flatMap((patch) => patch.rows.map((row) => row.id))).toEqual([
      'id:A/02.flac',
    ]);
    expect(api.patches.slice(sent).flatMap((patch) => patch.removed)).toEqual([]);
  });

  it('holds a reopened track once: its draft is its original, and its sources are shared', async () => {
    const { library: before, api: saving } = await libraryWith({
      'A/01.flac': { title: 'One' },
      'A/02.flac': { title: 'Two' },
    });
    await before.saveNow();
    // The fake answers as main does, through JSON (the browser host's wire).
    const api = fakeApi(saving.saved);
    const library = new LibraryState(api, () => {
      throw new Error('no reading after a restart');
    });
    await library.load();
    const [one, two] = library.rows;
    expect(one!.draft.title?.value).toBe('One');
    expect(one!.original).toBe(one!.draft);
    expect(one!.draft.title!.source).toBe(two!.draft.title!.source);

    // Nothing changed is nothing to save; an edit keeps what the track was read as.
    const sent = api.patches.length;
    await library.saveNow();
    expect(api.patches.length).toBe(sent);
    library.setCell(['id:A/01.flac'], columns.title, 'Uno');
    expect(library.rows[0]!.original!.title?.value).toBe('One');
  });
});
