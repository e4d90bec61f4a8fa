import { describe, expect, it } from 'vitest';

import { ok } from '../../src-main/ipc/contract.js';
import {
  fakeApi,
  fakeDraft,
  type FakeTags,
  libraryWith,
  pick,
} from '../../test/fakes/fake-library.js';
import type { TagReader } from '../lib/tags/tag-reader.js';
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

  it('reads a track the app closed before reading when its folder is added again, and only that one', async () => {
    const tags: Record<string, FakeTags> = {
      'A/01.flac': { title: 'One', isrc: 'GBAYE2100001' },
      'A/02.flac': { title: 'Two', isrc: 'GBAYE2100002' },
      'A/03.flac': { title: 'Three', isrc: 'GBAYE2100003', album: 'Days' },
    };
    const { library: before, api: saving } = await libraryWith(tags);
    before.setCell(['id:A/01.flac'], columns.title, 'Uno');
    await before.saveNow();
    // As a save during an add left it when the app died: the third file's tags not read yet.
    const session = saving.saved.session!;
    const [one, two, three] = session.rows;
    const waiting = {
      ...three!,
      status: 'reading' as const,
      draft: { file: 'A/03.flac', primaryMedia: three!.draft.primaryMedia },
      original: null,
    };
    const api = fakeApi({ session: { ...session, rows: [one!, two!, waiting] }, missing: [] });
    const read: string[] = [];
    const library = new LibraryState(
      api,
      () => ({
        async read(list, onResult) {
          for (const item of list) {
            read.push(item.relativePath);
            const draft = fakeDraft(item.relativePath, tags[item.relativePath]!);
            onResult(item.key, { file: item.relativePath, draft, findings: [] });
          }
        },
      }),
      { saveDelayMs: 5, flushDelayMs: 0 },
    );
    await library.load();
    expect(library.rows[2]!.status).toBe('unreadable');
    expect(library.rows[2]!.readFindings[0]!.message).toMatch(/add the file again/);
    // Left out of deliveries by the user before the folder is added again.
    library.setExcluded(['id:A/03.flac'], true);
    await library.saveNow();

    const sent = api.patches.length;
    await library.add(Object.keys(tags).map(pick));
    await library.settled();
    await library.saveNow();
    expect(read).toEqual(['A/01.flac', 'A/02.flac', 'A/03.flac']);
    expect(
      library.rows.map((row) => [row.status, row.draft.title?.value, row.draft.isrc?.value]),
    ).toEqual([
      ['ready', 'Uno', 'GBAYE2100001'],
      ['ready', 'Two', 'GBAYE2100002'],
      ['ready', 'Three', 'GBAYE2100003'],
    ]);
    const third = library.rows[2]!;
    expect(third.readFindings).toEqual([]);
    expect(third.draft.album?.title?.value).toBe('Days');
    expect(third.original).toBe(third.draft);
    expect(third.excluded).toBe(true);
    expect(library.readTotal).toBe(0);
    // Only the track read again is saved; the others were already, as they are.
    expect(api.patches.slice(sent).flatMap((patch) => patch.rows.map((row) => row.id))).toEqual([
      'id:A/03.flac',
    ]);
  });

  it('reads a file whose tags could not be read when it is added again, once it can be', async () => {
    const tags: Record<string, FakeTags | null> = {
      'A/01.flac': { title: 'One' },
      'A/02.flac': null,
    };
    const reader: TagReader = {
      async read(list, onResult) {
        for (const item of list) {
          const found = tags[item.relativePath];
          onResult(
            item.key,
            found
              ? {
                  file: item.relativePath,
                  draft: fakeDraft(item.relativePath, found),
                  findings: [],
                }
              : {
                  file: item.relativePath,
                  draft: null,
                  findings: [{ level: 'error', message: 'cannot read the file' }],
                },
          );
        }
      },
    };
    const library = new LibraryState(fakeApi(), () => reader, { saveDelayMs: 5, flushDelayMs: 0 });
    await library.add(Object.keys(tags).map(pick));
    await library.settled();
    expect(library.rows.map((row) => row.status)).toEqual(['ready', 'unreadable']);
    // Still unreadable: added again, it says so again, and stays one row.
    await library.add([pick('A/02.flac')]);
    await library.settled();
    expect(library.rows.map((row) => row.status)).toEqual(['ready', 'unreadable']);
    expect(library.findings.get('id:A/02.flac')).toEqual([
      { level: 'error', message: 'cannot read the file' },
    ]);
    // The user mends the file (tags written again: a larger file) and adds it again.
    tags['A/02.flac'] = { title: 'Two' };
    const mended = new File(['mended master'], '02.flac', { lastModified: 1_800_000_000_000 });
    await library.add([{ file: mended, relativePath: 'A/02.flac' }]);
    await library.settled();
    expect(library.rows.map((row) => [row.status, row.draft.title?.value])).toEqual([
      ['ready', 'One'],
      ['ready', 'Two'],
    ]);
    // The row is the file as it is now, not as it was when it could not be read.
    expect([library.rows[1]!.size, library.rows[1]!.lastModified]).toEqual([
      mended.size,
      1_800_000_000_000,
    ]);
    expect(library.rows[1]!.original).toBe(library.rows[1]!.draft);
  });
});
