import { describe, expect, it } from 'vitest';

import { fail, type PickedFile } from '../../src-main/ipc/contract.js';
import { fakeApi, fakeDraft, libraryWith, pick } from '../../test/fakes/fake-library.js';
import { collectGarbage } from '../../test/support/garbage.js';
import { columns } from './columns.js';
import { LibraryState } from './library-state.svelte.js';

describe('library', () => {
  it('reads each picked file once: main gets the proofs the tags reader computed, and the rows their tags', async () => {
    const api = fakeApi();
    const granted: PickedFile[] = [];
    const grant = api.grantFiles;
    api.grantFiles = (files) => {
      granted.push(...files);
      return grant(files);
    };
    const proof = 'ab'.repeat(32);
    const library = new LibraryState(
      api,
      () => ({
        async read(list, onResult) {
          for (const item of list) {
            expect(item.prove).toBe(true);
            onResult(
              item.key,
              {
                file: item.relativePath,
                draft: fakeDraft(item.relativePath, { title: 'One' }),
                findings: [],
              },
              { proof, size: 1, lastModified: 1_700_000_000_000 },
            );
          }
        },
      }),
      { saveDelayMs: 5, flushDelayMs: 0 },
    );
    await library.add([pick('A/01.flac'), pick('A/02.flac')]);
    await library.settled();
    expect(granted.map((f) => f.proven)).toEqual([
      { proof, size: 1, lastModified: 1_700_000_000_000 },
      { proof, size: 1, lastModified: 1_700_000_000_000 },
    ]);
    expect(
      library.rows.map((r) => [r.draft.file, r.status, r.draft.title?.value, r.lastModified]),
    ).toEqual([
      ['A/01.flac', 'ready', 'One', 1_700_000_000_000],
      ['A/02.flac', 'ready', 'One', 1_700_000_000_000],
    ]);
  });

  it('asks every picked file its size before reading any, in slices the page can paint between', async () => {
    // A picked File answers its first size question with a blocking round trip (~1 ms here).
    const asked: string[] = [];
    const slow = (relativePath: string): PickedFile => {
      const file = new File(['x'], relativePath.split('/').pop()!);
      Object.defineProperty(file, 'size', {
        get() {
          asked.push(relativePath);
          const until = performance.now() + 1;
          while (performance.now() < until);
          return 1;
        },
      });
      return { file, relativePath };
    };
    const picked = Array.from({ length: 40 }, (_, i) =>
      slow(`A/${String(i).padStart(2, '0')}.flac`),
    );
    let askedBeforeReading = -1;
    const library = new LibraryState(
      fakeApi(),
      () => ({
        async read(list, onResult) {
          if (askedBeforeReading < 0) askedBeforeReading = asked.length;
          for (const item of list) {
            onResult(item.key, {
              file: item.relativePath,
              draft: fakeDraft(item.relativePath, { title: 'One' }),
              findings: [],
            });
          }
        },
      }),
      { saveDelayMs: 5, flushDelayMs: 0 },
    );
    let seenBetween = -1;
    setTimeout(() => (seenBetween = library.sizedDone), 0);
    await library.add(picked);
    await library.settled();
    expect(askedBeforeReading).toBe(40);
    // The page got a turn while sizes were asked: some files were asked, not all.
    expect(seenBetween).toBeGreaterThan(0);
    expect(seenBetween).toBeLessThan(40);
    expect([library.sizedDone, library.sizedTotal]).toEqual([0, 0]);
    expect(library.rows.filter((r) => r.status === 'ready')).toHaveLength(40);
  });

  it("saves the user's edits while changes keep coming, at most the longest wait after the first one not saved", async () => {
    const api = fakeApi();
    const library = new LibraryState(
      api,
      () => ({
        async read(list, onResult) {
          for (const item of list) {
            onResult(item.key, {
              file: item.relativePath,
              draft: fakeDraft(item.relativePath, { title: 'One' }),
              findings: [],
            });
          }
        },
      }),
      { saveDelayMs: 100, saveMaxWaitMs: 300, flushDelayMs: 0 },
    );
    await library.add([pick('A/01.flac')]);
    await library.settled();
    await library.saveNow();
    const before = api.saves;
    // An edit every 30 ms for a second (an add's tags coming in): never the quiet the debounce
    // waits for, and yet the changes are saved as they go.
    for (let i = 0; i < 33; i++) {
      library.setCell(['id:A/01.flac'], columns.title, `Take ${i}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(api.saves - before).toBeGreaterThanOrEqual(1);
    expect(api.saved.session?.rows[0]?.draft.title?.value).toMatch(/^Take \d+$/);
    await library.saveNow();
    expect(api.saved.session?.rows[0]?.draft.title?.value).toBe('Take 32');
  });

  it('saves the tags of an add once every file is read, not while they are read, in any pace', async () => {
    const api = fakeApi();
    const patch = api.patchLibrary;
    const readingAtSave: number[] = [];
    api.patchLibrary = (request) => {
      readingAtSave.push(library.readTotal);
      return patch(request);
    };
    // Tags come in over ~400 ms in small batches, each flushed apart by more than the save's
    // debounce (a large library's flushes are that far apart).
    const library = new LibraryState(
      api,
      () => ({
        async read(list, onResult) {
          for (const item of list) {
            await new Promise((resolve) => setTimeout(resolve, 4));
            onResult(item.key, {
              file: item.relativePath,
              draft: fakeDraft(item.relativePath, { title: 'One' }),
              findings: [],
            });
          }
        },
      }),
      { saveDelayMs: 5, flushDelayMs: 20 },
    );
    await library.add(
      Array.from({ length: 100 }, (_, i) => pick(`A/${String(i).padStart(3, '0')}.flac`)),
    );
    await library.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readingAtSave.length).toBeGreaterThan(0);
    expect(readingAtSave.filter((total) => total > 0)).toEqual([]);
    expect(api.saved.session?.rows).toHaveLength(100);
    expect(api.saved.session?.rows.every((row) => row.draft.title?.value === 'One')).toBe(true);
  });

  it('counts a large add as one read: its progress runs over every file, not chunk by chunk', async () => {
    const api = fakeApi();
    const grant = api.grantFiles;
    const seen: Array<[done: number, total: number]> = [];
    let grants = 0;
    api.grantFiles = async (files) => {
      seen.push([library.readDone, library.readTotal]);
      const answer = await grant(files);
      // The second chunk: one file refused (changed since it was picked).
      if (++grants === 2 && answer.ok) {
        const [first, ...rest] = answer.value.granted;
        return {
          ...answer,
          value: {
            granted: rest,
            refused: [{ relativePath: first!.relativePath, reason: 'changed' }],
          },
        };
      }
      return answer;
    };
    const { library } = await libraryWith({}, api);
    const picked = Array.from({ length: 1_200 }, (_, i) =>
      pick(`A/${String(i).padStart(4, '0')}.flac`),
    );
    await library.add(picked);
    await library.settled();
    // Three chunks; the total is the whole add at every grant, and what is done only grows.
    expect(seen.map(([, total]) => total)).toEqual([1_200, 1_200, 1_200]);
    expect(seen.map(([done]) => done)).toEqual(
      [...seen.map(([done]) => done)].sort((a, b) => a - b),
    );
    expect([library.readDone, library.readTotal]).toEqual([0, 0]);
    expect(library.rows).toHaveLength(1_199);
    expect(library.ignored).toHaveLength(1);
  });

  it('lets each chunk of picked files go once its rows are added, not all at the end of the add', async () => {
    // Held to the end, 100,000 picked files became garbage at once, and the page's largest
    // collection fell on the user's first scroll through the rows.
    const api = fakeApi();
    const grant = api.grantFiles;
    let grants = 0;
    let lastAsked!: () => void;
    const last = new Promise<void>((resolve) => (lastAsked = resolve));
    let answerLast!: () => void;
    const lastAnswered = new Promise<void>((resolve) => (answerLast = resolve));
    api.grantFiles = async (files) => {
      if (++grants === 6) {
        lastAsked();
        await lastAnswered;
      }
      return grant(files);
    };
    const { library } = await libraryWith({}, api);
    const files: Array<WeakRef<File>> = [];
    // The test holds no picked file itself, as the page's picker does not.
    const adding = library.add(
      Array.from({ length: 2_600 }, (_, i) => {
        const picked = pick(`A/${String(i).padStart(4, '0')}.flac`);
        files.push(new WeakRef(picked.file as File));
        return picked;
      }),
    );
    await last;
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    const alive = () => files.map((ref) => ref.deref() !== undefined);
    // Five chunks of 500 added while main checks the sixth, which is held. Of those added, a
    // chunk's worth may outlive its turn (V8's optimised frames can keep a dead value a while:
    // seen once under load); held to the end of the add, all 2,500 would be.
    expect(alive().slice(0, 2_500).filter(Boolean).length).toBeLessThanOrEqual(500);
    expect(alive().slice(2_500).every(Boolean)).toBe(true);
    answerLast();
    await adding;
    await library.settled();
    collectGarbage();
    expect(alive().filter(Boolean)).toHaveLength(0);
    expect(library.rows).toHaveLength(2_600);
  });

  it('counts two adds at once as one read of both, ending with every row read', async () => {
    // Nothing is read until both adds are under way, whatever the pace of the machine.
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const library = new LibraryState(
      fakeApi(),
      () => ({
        async read(list, onResult) {
          await gate;
          for (const item of list) {
            const draft = fakeDraft(item.relativePath, { title: 'T' });
            onResult(item.key, { file: item.relativePath, draft, findings: [] });
          }
        },
      }),
      { saveDelayMs: 5, flushDelayMs: 0 },
    );
    const files = (folder: string) =>
      Array.from({ length: 600 }, (_, i) => pick(`${folder}/${String(i).padStart(4, '0')}.flac`));
    const adding = Promise.all([library.add(files('A')), library.add(files('B'))]);
    await expect.poll(() => library.readTotal).toBe(1_200);
    open();
    await adding;
    await library.settled();
    expect([library.readDone, library.readTotal]).toEqual([0, 0]);
    expect(library.rows).toHaveLength(1_200);
    expect(library.rows.every((row) => row.status !== 'reading')).toBe(true);
  });

  it('takes back what an add cut short will not read, so no progress is left waiting', async () => {
    const api = fakeApi();
    const grant = api.grantFiles;
    let grants = 0;
    api.grantFiles = async (files) =>
      ++grants === 2 ? fail('io', 'the library folder is not writable') : grant(files);
    const { library } = await libraryWith({}, api);
    const picked = Array.from({ length: 1_200 }, (_, i) =>
      pick(`B/${String(i).padStart(4, '0')}.flac`),
    );
    await library.add(picked);
    await library.settled();
    expect(library.error).toBe('the library folder is not writable');
    expect(library.rows).toHaveLength(500);
    expect([library.readDone, library.readTotal]).toEqual([0, 0]);
  });

  it('adds a file picked twice once, and lists what is not audio', async () => {
    const { library } = await libraryWith({ 'A/01.flac': { title: 'One', isrc: 'GBAYE2100001' } });
    await library.add([pick('A/01.flac'), pick('A/cover.jpg'), pick('A/old.tak')]);
    expect(library.rows).toHaveLength(1);
    expect(library.ignored.map((i) => i.relativePath)).toEqual(['A/cover.jpg', 'A/old.tak']);
    expect(library.ignored[1]!.reason).toMatch(/audio format Courier cannot read/);
  });

  it('gives each track an outer_id: the ISRC when unique, else the file name', async () => {
    const { library } = await libraryWith({
      'A/01.flac': { isrc: 'GBAYE2100001' },
      'A/02.flac': { isrc: 'GBAYE2100009' },
      'A/03.flac': { isrc: 'GBAYE2100009' },
    });
    expect(library.rows.map((r) => r.draft.outerId?.value)).toEqual(['GBAYE2100001', '02', '03']);
  });

  it('marks unreadable files and keeps them out of validation', async () => {
    const { library } = await libraryWith({ 'A/01.flac': { title: 'One' } });
    await library.add([pick('A/broken.mp3')]);
    await library.settled();
    const broken = library.rows.find((r) => r.draft.file === 'A/broken.mp3')!;
    expect(broken.status).toBe('unreadable');
    expect(library.findings.get(broken.id)).toEqual([
      { level: 'error', message: 'cannot read the file' },
    ]);
  });

  it('saves the session and restores it, marking files main could not grant again', async () => {
    const { library, api } = await libraryWith({ 'A/01.flac': { title: 'One' } });
    library.setCell(
      [library.rows[0]!.id],
      { ...(await import('./columns.js')).columns.title },
      'Uno',
    );
    await library.saveNow();
    expect(api.saved.session?.rows[0]?.draft.title?.value).toBe('Uno');

    const restored = fakeApi({ session: api.saved.session, missing: ['id:A/01.flac'] });
    const { LibraryState } = await import('./library-state.svelte.js');
    const again = new LibraryState(restored, () => {
      throw new Error('no reading after a restart');
    });
    await again.load();
    await again.validated();
    expect(again.rows[0]!.draft.title?.value).toBe('Uno');
    expect(again.rows[0]!.original?.title?.value).toBe('One');
    expect(again.rows[0]!.missing).toBe(true);
    expect(again.findings.get('id:A/01.flac')!.at(-1)!.message).toMatch(/gone or changed/);
  });
});

describe('a file without an extension', () => {
  it('says when it holds audio instead of calling it "not an audio file"', async () => {
    const { library } = await libraryWith({});
    const id3 = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    await library.add([
      { file: new File([id3], 'track07'), relativePath: 'A/track07' },
      { file: new File(['plain words, not audio'], 'README'), relativePath: 'A/README' },
    ]);
    expect(library.ignored).toEqual([
      {
        relativePath: 'A/track07',
        reason:
          'no file extension: read as .mp3 from its content; it is not delivered until its name ends in .mp3',
      },
      { relativePath: 'A/README', reason: 'not an audio file' },
    ]);
  });
});
