/**
 * A library over a fake door and a fake tag reader, for the renderer's tests: main grants every
 * file (id from its path) and the "tags" are drafts given by the test.
 */
import { applyLibraryPatch, type LibraryPatch } from '../../src-main/core/library/library-patch.js';
import { sentLoad } from '../../src-main/core/library/sent-load.js';
import type { LibrarySession } from '../../src-main/core/library/session-schema.js';
import { sessionRow } from '../../src-main/core/library/session-schema.js';
import type { AudioProperties } from '../../src-main/core/model/audio-properties.js';
import type { FileReadResult } from '../../src-main/core/model/read-result.js';
import type { DraftTrack, Finding } from '../../src-main/core/model/track.js';
import { type CourierApi, ok, type PickedFile } from '../../src-main/ipc/contract.js';
import type { TagReader } from '../../src-renderer/lib/tags/tag-reader.js';
import { GridState } from '../../src-renderer/state/grid-state.svelte.js';
import { LibraryState } from '../../src-renderer/state/library-state.svelte.js';
import { type FakeDoor, fakeDoor } from './courier-door.js';

/** Tags for a fake file: title, ISRC and so on as a tag reader would map them. */
export interface FakeTags {
  title?: string;
  isrc?: string;
  artist?: string;
  album?: string;
  upc?: string;
  track?: string;
  disk?: string;
  date?: string;
  /** The master's QC properties, as the reader would give them. */
  audio?: AudioProperties;
  /** What reading found (a master cut short, say). */
  findings?: Finding[];
}

const tag = (name: string) => ({ kind: 'tag' as const, tag: name });

/** The draft a tag reader would make of these tags. */
export function fakeDraft(file: string, tags: FakeTags): DraftTrack {
  const draft: DraftTrack = { file, primaryMedia: { value: file, source: { kind: 'file-name' } } };
  if (tags.title) draft.title = { value: tags.title, source: tag('TIT2') };
  if (tags.isrc) draft.isrc = { value: tags.isrc, source: tag('TSRC') };
  if (tags.date) draft.releaseDate = { value: tags.date, source: tag('TDRC') };
  if (tags.artist)
    draft.artists = { value: [{ name: tags.artist, role: 'Main' }], source: tag('TPE1') };
  if (tags.album || tags.upc || tags.track || tags.disk) {
    draft.album = {};
    if (tags.album) draft.album.title = { value: tags.album, source: tag('TALB') };
    if (tags.upc) draft.album.upc = { value: tags.upc, source: tag('TXXX:BARCODE') };
    if (tags.track) draft.album.trackPosition = { value: tags.track, source: tag('TRCK') };
    if (tags.disk) draft.album.diskNumber = { value: tags.disk, source: tag('TPOS') };
  }
  return draft;
}

/** A picked file with these tags (the content is irrelevant to the fake reader). */
export function pick(relativePath: string): PickedFile {
  return { file: new File(['x'], relativePath.split('/').pop()!), relativePath };
}

/** What the fake door has saved: the last session, and the rows whose file is gone. */
export interface SavedLibrary {
  session: LibrarySession | null;
  missing: string[];
}

/** A fake door that grants every file and keeps the last saved session. */
export type LibraryDoor = FakeDoor & {
  saved: SavedLibrary;
  saves: number;
  /** Every patch sent, in order. */
  patches: LibraryPatch[];
};

/**
 * A fake door that grants every file (id `id:<path>`) and keeps the last saved session; other
 * operations are faked by `overrides` or answer that they are not part of the test.
 */
export function fakeApi(
  saved: SavedLibrary = { session: null, missing: [] },
  overrides: Partial<CourierApi> = {},
): LibraryDoor {
  const door: LibraryDoor = Object.assign(
    fakeDoor({
      async grantFiles(files) {
        return ok({
          granted: files.map((f) => ({
            id: `id:${f.relativePath}`,
            name: f.file.name,
            relativePath: f.relativePath,
            size: f.file.size,
          })),
          refused: [],
        });
      },
      async loadLibrary() {
        // All rows in one page, and what the file checks would find known at once.
        // Sent as main sends it, through JSON as the browser host's wire carries it.
        const total = door.saved.session?.rows.length ?? 0;
        const loaded = { ...door.saved, total, load: 'fake-load', checking: 0, previous: null };
        return ok(JSON.parse(JSON.stringify(sentLoad(loaded))) as ReturnType<typeof sentLoad>);
      },
      async saveLibrary({ session }) {
        door.saves++;
        door.saved = { session, missing: [] };
        return ok({ saved: true as const });
      },
      async patchLibrary({ patch }) {
        // Applied as main applies it (core's one rule), so `saved` is the session main would hold.
        door.saves++;
        door.patches.push(patch);
        const library = {
          rows: new Map((door.saved.session?.rows ?? []).map((row) => [row.id, row])),
          ignored: door.saved.session?.ignored ?? [],
        };
        // Main stores a sent original that is its draft as 'draft' and loads it as the draft.
        applyLibraryPatch(library, { ...patch, rows: patch.rows.map(sessionRow) });
        door.saved = {
          session: { version: 1, rows: [...library.rows.values()], ignored: library.ignored },
          missing: [],
        };
        return ok({ saved: true as const });
      },
      ...overrides,
    }),
    { saved, saves: 0, patches: [] },
  );
  return door;
}

/** A library and its grid holding files read with the given tags. */
export async function libraryWith(
  files: Record<string, FakeTags>,
  api = fakeApi(),
): Promise<{ library: LibraryState; grid: GridState; api: LibraryDoor }> {
  const reader: TagReader = {
    async read(list, onResult) {
      for (const item of list) {
        const tags = files[item.relativePath];
        const result: FileReadResult = tags
          ? {
              file: item.relativePath,
              draft: fakeDraft(item.relativePath, tags),
              findings: tags.findings ?? [],
              ...(tags.audio ? { audio: tags.audio } : {}),
            }
          : {
              file: item.relativePath,
              draft: null,
              findings: [{ level: 'error', message: 'cannot read the file' }],
            };
        onResult(item.key, result);
      }
    },
  };
  const library = new LibraryState(api, () => reader, {
    saveDelayMs: 5,
    flushDelayMs: 0,
  });
  await library.add(Object.keys(files).map(pick));
  await library.settled();
  return { library, grid: new GridState(library), api };
}
