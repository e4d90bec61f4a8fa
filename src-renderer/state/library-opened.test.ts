import { describe, expect, it } from 'vitest';

import type { FileReadResult } from '../../src-main/core/model/read-result.js';
import { fail, ok, type OpenedFile } from '../../src-main/ipc/contract.js';
import { fakeApi, fakeDraft, libraryWith } from '../../test/fakes/fake-library.js';

const opened = (relativePath: string): OpenedFile => ({
  id: `id:${relativePath}`,
  name: relativePath.split('/').pop()!,
  relativePath,
  size: 1000,
  lastModified: 1_700_000_000_000,
});

/** A door whose main reads these tags for `files:readTags`, by relative path. */
function mainReads(tags: Record<string, FileReadResult | undefined>) {
  const asked: string[] = [];
  const door = fakeApi(undefined, {
    async readFileTags({ files }) {
      asked.push(...files.map((f) => f.relativePath));
      return ok({
        results: files.map(({ id, relativePath }) => ({
          id,
          result: tags[relativePath] ?? {
            file: relativePath,
            draft: null,
            findings: [{ level: 'error', message: 'cannot read the file' }],
          },
        })),
      });
    },
  });
  return Object.assign(door, { asked });
}

describe('files the OS opened the app with', () => {
  it('join the library with the tags main read, outer_ids and findings, and are saved', async () => {
    const main = mainReads({
      'B/01.flac': {
        file: 'B/01.flac',
        draft: fakeDraft('B/01.flac', { title: 'Harbour', isrc: 'GBAYE2100002' }),
        findings: [],
      },
    });
    const { library, api } = await libraryWith({ 'A/01.flac': { isrc: 'GBAYE2100001' } }, main);
    await library.addOpened({
      files: [opened('B/01.flac'), opened('B/02.flac')],
      refused: [{ relativePath: 'B/cover.jpg', reason: 'ignored: not an audio file' }],
    });
    await library.settled();
    await library.saveNow();
    expect(main.asked).toEqual(['B/01.flac', 'B/02.flac']);
    const harbour = library.row('id:B/01.flac')!;
    expect(harbour).toMatchObject({ status: 'ready', size: 1000 });
    expect(harbour.draft.title?.value).toBe('Harbour');
    expect(harbour.draft.outerId?.value).toBe('GBAYE2100002');
    expect(harbour.original).toBe(harbour.draft);
    expect(library.row('id:B/02.flac')!.status).toBe('unreadable');
    expect(library.findings.get('id:B/02.flac')).toEqual([
      { level: 'error', message: 'cannot read the file' },
    ]);
    expect(library.ignored).toEqual([
      { relativePath: 'B/cover.jpg', reason: 'ignored: not an audio file' },
    ]);
    expect(api.saved.session?.rows.map((r) => r.id)).toEqual([
      'id:A/01.flac',
      'id:B/01.flac',
      'id:B/02.flac',
    ]);
  });

  it('keep one row for a file already in the library, with its edits', async () => {
    const main = mainReads({});
    const { library } = await libraryWith({ 'A/01.flac': { title: 'One' } }, main);
    const id = library.rows[0]!.id;
    library.applyEdits('Edit', [
      {
        id,
        draft: { ...library.rows[0]!.draft, title: { value: 'Uno', source: { kind: 'manual' } } },
      },
    ]);
    await library.addOpened({ files: [opened('A/01.flac')], refused: [] });
    expect(main.asked).toEqual([]);
    expect(library.rows).toHaveLength(1);
    expect(library.rows[0]!.draft.title?.value).toBe('Uno');
  });

  it('become unreadable rows saying why when main could not read them', async () => {
    const main = fakeApi(undefined, {
      readFileTags: async () => fail('not_granted', 'File x was not granted.'),
    });
    const { library } = await libraryWith({}, main);
    await library.addOpened({ files: [opened('C/01.flac')], refused: [] });
    await library.settled();
    expect(library.row('id:C/01.flac')).toMatchObject({
      status: 'unreadable',
      readFindings: [
        { level: 'error', message: 'the tags could not be read: File x was not granted.' },
      ],
    });
  });
});
