/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups or
   plain caches; state is replaced as whole values, never mutated in place. */
import { libraryChanges, splitPatch } from '../../src-main/core/library/library-patch.js';
import {
  type LibrarySession,
  sentRow,
  sessionRow,
  type StoredRow,
} from '../../src-main/core/library/session-schema.js';
import {
  type AlbumFieldFix,
  type AlbumReview,
  type AlbumsReview,
  withAlbumFix,
} from '../../src-main/core/model/album-review.js';
import { albumOf } from '../../src-main/core/model/albums.js';
import {
  tracksWithOtherArtistIds,
  withArtistIdByName,
} from '../../src-main/core/model/artist-ids.js';
import {
  audioByContentMessage,
  audioMagicLength,
  fileKind,
  opensForContent,
  sniffAudioExtension,
  unsupportedAudioMessage,
} from '../../src-main/core/model/audio-formats.js';
import {
  type AudioProperties,
  withSharedNames,
} from '../../src-main/core/model/audio-properties.js';
import type { DeliveryRules } from '../../src-main/core/model/delivery-rules.js';
import { assignOuterIds } from '../../src-main/core/model/outer-id.js';
import type { FileReadResult } from '../../src-main/core/model/read-result.js';
import { sharedSource, withSharedSources } from '../../src-main/core/model/shared-sources.js';
import { finish, type Steps } from '../../src-main/core/model/steps.js';
import type { DraftTrack, Finding, ValueSource } from '../../src-main/core/model/track.js';
import { ValidationMemo } from '../../src-main/core/model/validate.js';
import type {
  CourierApi,
  Envelope,
  EventPayloads,
  GrantResult,
  PickedFile,
  SentLoad,
  TrackStandingView,
} from '../../src-main/ipc/contract.js';
import type { TagReader } from '../lib/tags/tag-reader.js';
import type { Column } from './columns.js';
import { findingsSteps, type LibraryFindings, noFindings } from './library-findings.js';
import { type DraftChange, type EditCommand, UndoStack } from './undo-stack.js';

/** Where a row is in its life: tags being read, read, or not readable as audio. */
export type RowStatus = 'reading' | 'ready' | 'unreadable';

/** One track of the library: a granted file and its draft metadata. */
export interface LibraryRow {
  /** The grant id main gave the file (stable per absolute path). */
  id: string;
  size: number;
  lastModified: number;
  status: RowStatus;
  draft: DraftTrack;
  /** The draft as read from the tags, before any edit. */
  original: DraftTrack | null;
  readFindings: Finding[];
  /** Restored from a saved session but the file is gone or changed: main can't read it. */
  missing?: boolean;
  /** Left out of deliveries until included again (kept in the session). */
  excluded?: boolean;
  /** The master's QC properties, as read. */
  audio?: AudioProperties;
  /** The user accepts this master cut short, as it is (kept in the session, sent to main). */
  acceptCutShort?: boolean;
}

/** A library command: edits of drafts, rows taken out (Clear, Remove), or a flag set on rows. */
type LibraryCommand =
  | (EditCommand & { kind?: undefined })
  | {
      kind: 'rows';
      label: string;
      /** The rows taken out and the index each stood at, in index order. */
      removed: Array<{ index: number; row: LibraryRow }>;
      /** Files that were listed as not added, taken out with them (Clear). */
      ignored: SkippedFile[];
    }
  | { kind: 'flag'; label: string; flag: RowFlag; ids: string[]; on: boolean };

/** The flags a row carries for the user, kept in the session. */
type RowFlag = 'excluded' | 'acceptCutShort';

/** An edit of one track: its new draft. */
export interface DraftEdit {
  id: string;
  draft: DraftTrack;
}

/** A file that was not added, and why. */
export interface SkippedFile {
  relativePath: string;
  reason: string;
}

const manual: ValueSource = { kind: 'manual' };

/** Files granted per request: small enough that the first rows show quickly. */
const grantChunk = 500;

/**
 * Reads a chunk of picked files before main grants them: their tags, and their content proofs
 * from the same bytes (`proven`, given to the grant). Results in the chunk's order.
 */
async function readBeforeGrant(
  reader: TagReader,
  chunk: readonly PickedFile[],
): Promise<{ picked: PickedFile[]; results: Array<FileReadResult | undefined> }> {
  const picked = chunk.slice();
  const results = new Array<FileReadResult | undefined>(chunk.length);
  await reader.read(
    chunk.map((item, i) => ({
      key: String(i),
      file: item.file as File,
      relativePath: item.relativePath,
      prove: true,
    })),
    (key, result, proven) => {
      const i = Number(key);
      results[i] = result;
      if (proven) picked[i] = { ...chunk[i]!, proven };
    },
  );
  return { picked, results };
}

/** The page's time one slice of `askSizes` takes at most, in ms (under a frame). */
const sizesSlice = 8;

/**
 * Asks the browser each picked file's size and date, before any file is read, a slice at a time
 * between frames. The first time a picked `File` is asked (or handed to a worker, which asks it),
 * Chromium blocks the page on a round trip to its browser process: about 0.2 ms while nothing
 * else runs, but over 1 ms once the tags workers keep that process busy reading. Asked here, the
 * 100,000 round trips of a large drop take the page ~20 s in short slices, not ~2 min in the
 * middle of reading. (Files from a drop come with theirs: asking costs nothing then.)
 * The progress is shown five times a second, not after every slice: redrawn after each, the page
 * spent a third of its time drawing (100,000 files: 55.7 s, against 41.1 s so).
 */
async function askSizes(
  files: readonly PickedFile[],
  onProgress: (done: number) => void,
): Promise<void> {
  let i = 0;
  let shown = 0;
  while (i < files.length) {
    const until = performance.now() + sizesSlice;
    for (; i < files.length && performance.now() < until; i++) void files[i]!.file.size;
    if (until - shown >= 200 || i === files.length) {
      shown = until;
      onProgress(i);
    }
    if (i < files.length) await nextTask();
  }
}

/** Files whose tags main is asked to read at once (the contract's limit). */
const mainReadChunk = 1_000;

/**
 * The library: every track the user brought in, its draft metadata and findings, edits with undo,
 * and the session saved (debounced) so it survives a restart. `rows` is replaced, never mutated,
 * so 10,000 tracks cost one signal.
 */
export class LibraryState {
  #rows = $state.raw<LibraryRow[]>([]);

  /** Every track, in the order they were added; replaced on each change, never mutated. */
  get rows(): LibraryRow[] {
    return this.#rows;
  }

  set rows(rows: LibraryRow[]) {
    this.#setRows(rows, false);
  }

  /**
   * The rows as of the last change of which track stands where: changes that keep every row in
   * its place (an edit, a flag, tags read) leave it, so the index by id is not rebuilt for them.
   */
  #placed = $state.raw<readonly LibraryRow[]>([]);

  /**
   * Replaces the rows; `samePlaces` when every row keeps its id and index; `read` when they are
   * a batch of tags read (validated less often while reading).
   */
  #setRows(rows: LibraryRow[], samePlaces: boolean, read = false): void {
    this.#rows = rows;
    if (!samePlaces) this.#placed = rows;
    this.standing = null;
    this.#scheduleValidation(read);
  }

  /**
   * Every row's findings (read problems, validation across the library, position gaps). Worked
   * out just after a change is painted: an edit shows at once, its findings a moment later, so
   * a bulk edit never waits for the whole library to be validated.
   */
  findings = $state.raw<Map<string, readonly Finding[]>>(noFindings.findings);
  /**
   * The albums as reviewed with the findings (`album-review.ts`): which tracks make one album,
   * its track list with gaps, and what is said of the album once. `ids` are the reviewed rows'.
   */
  albums = $state.raw<{ review: AlbumsReview; ids: string[] }>(noFindings.albums);
  /** The last pass's findings and albums, which the next one hands back where nothing changed. */
  #found: LibraryFindings = noFindings;
  readonly #albumIndexById = $derived.by(() => {
    const map = new Map<string, number>();
    const { review, ids } = this.albums;
    ids.forEach((id, i) => map.set(id, review.albumOfTrack[i]!));
    return map;
  });
  /** The rows changed since the last validation started. */
  #validationPending = false;
  /** A validation is to start after the next paint. */
  #validationQueued = false;
  /** The validation under way, run a slice at a time (`#validationStep`). */
  #validation: Steps<LibraryFindings> | undefined;
  /** What the last validation worked out per draft, for the next one. */
  readonly #memo = new ValidationMemo();
  /** A validation held back while files are read (`#scheduleValidation`). */
  #validationTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last validation ended, and how long it took (ms of the page's time, not wall). */
  #validatedAt = 0;
  #validationCost = 0;
  ignored = $state.raw<SkippedFile[]>([]);
  busy = $state(false);
  error = $state('');
  readDone = $state(0);
  readTotal = $state(0);
  /** Picked files whose size and date the browser has told so far (`askSizes`), of how many. */
  sizedDone = $state(0);
  sizedTotal = $state(0);
  undoLabel = $state<string | undefined>(undefined);
  redoLabel = $state<string | undefined>(undefined);
  /** Bumped after each user edit (for views that follow edits, e.g. the inspector). */
  editVersion = $state(0);
  /**
   * What the last Undo or Redo did ("Undone: Remove 2 tracks"), with the edit version it left and
   * a count telling one from the next: the status line shows it in place of a notice it made stale.
   */
  lastUndo = $state.raw<{ text: string; version: number; count: number } | null>(null);

  /** Row index by id. */
  readonly indexById = $derived.by(() => {
    const map = new Map<string, number>();
    this.#placed.forEach((row, i) => map.set(row.id, i));
    return map;
  });

  /** Counts for the summary and filters. */
  readonly counts = $derived.by(() => {
    let errors = 0;
    let warnings = 0;
    for (const list of this.findings.values()) {
      if (list.some((f) => f.level === 'error')) errors++;
      else if (list.length > 0) warnings++;
    }
    return { errors, warnings };
  });

  readonly #stack = new UndoStack<LibraryCommand>();
  #reader: TagReader | undefined;
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #saving: Promise<void> = Promise.resolve();
  #pendingResults: Array<[string, FileReadResult]> = [];
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** How long the last flush of tag results took, up to its rows painted and validated. */
  #flushCost = 0;

  constructor(
    private readonly api: CourierApi,
    private readonly makeReader: () => TagReader,
    private readonly options: {
      saveDelayMs?: number;
      saveMaxWaitMs?: number;
      flushDelayMs?: number;
    } = {},
  ) {}

  /** Adds picked or dropped files: audio is granted by main and read; the rest is listed. */
  async add(picked: PickedFile[]): Promise<void> {
    if (picked.length === 0) return;
    this.busy = true;
    this.error = '';
    let uncounted = 0;
    try {
      const audio: PickedFile[] = [];
      const skipped: SkippedFile[] = [];
      for (const item of picked) {
        const kind = fileKind(item.relativePath);
        if (kind === 'audio') audio.push(item);
        else if (kind === 'unsupported-audio') {
          skipped.push({
            relativePath: item.relativePath,
            reason: unsupportedAudioMessage,
          });
        } else {
          // A file not named as audio (no extension, `.part`) may hold audio: its first bytes say.
          const sniffed =
            opensForContent(item.relativePath) && item.file instanceof Blob
              ? sniffAudioExtension(await firstBytes(item.file, audioMagicLength))
              : null;
          skipped.push({
            relativePath: item.relativePath,
            reason: sniffed
              ? audioByContentMessage(item.relativePath, sniffed)
              : kind === 'hidden'
                ? "a hidden file (its name starts with '.')"
                : 'not an audio file',
          });
        }
      }
      this.#ignore(skipped);
      // From here each file is held until its chunk is added, no longer: `picked` and `audio`
      // would keep all of them to the end of the add (see `takeFromInput`).
      picked = [];
      // Sizes first, in the order the browser listed the files: asked in path order, the same
      // 100,000 files take the browser half as long again.
      this.sizedTotal = audio.length;
      await askSizes(audio, (done) => (this.sizedDone = done));
      this.sizedTotal = this.sizedDone = 0;
      // Path order, in chunks: the tags workers read each chunk's files once, for their tags
      // and their content proofs; main grants the chunk with those proofs, and its rows show
      // with their tags. The next chunk is read while main checks this one, and the first rows
      // show while the rest of a big drop is still being read.
      const collator = new Intl.Collator(undefined, { numeric: true });
      audio.sort((a, b) => collator.compare(a.relativePath, b.relativePath));
      const chunks: PickedFile[][] = [];
      for (let i = 0; i < audio.length; i += grantChunk)
        chunks.push(audio.slice(i, i + grantChunk));
      const total = audio.length;
      audio.length = 0;
      const reader = (this.#reader ??= this.makeReader());
      // The whole add is counted at once: its progress is one bar, and the library is not
      // validated as if reading were over each time one chunk's tags are in.
      this.readTotal += total;
      uncounted = total;
      const readNext = () => {
        const chunk = chunks.shift();
        return chunk ? readBeforeGrant(reader, chunk) : undefined;
      };
      let read = readNext();
      while (read) {
        const { picked, results } = await read;
        const answer = this.api.grantFiles(picked);
        read = readNext();
        uncounted -= picked.length;
        if (!this.#addGranted(picked, await answer, results, true)) return;
      }
    } finally {
      // An add cut short takes back the files it counted and will not read.
      if (uncounted > 0) this.#countRead(0, uncounted);
      this.busy = false;
    }
  }

  /**
   * Adds files the OS handed the running app (a second launch, a drop on the dock icon). Main
   * granted them already and reads their tags (`files:readTags`), since the page has no `File`
   * for them; from there they take the dropped files' path: same rows, results and outer_ids.
   */
  async addOpened({ files, refused }: EventPayloads['library:open-paths']): Promise<void> {
    this.#ignore(refused);
    const fresh = this.#addRows(files);
    for (let i = 0; i < fresh.length; i += mainReadChunk) {
      const chunk = fresh.slice(i, i + mainReadChunk);
      const answer = await this.api.readFileTags({
        files: chunk.map(({ id, relativePath }) => ({ id, relativePath })),
      });
      for (const { id, relativePath } of chunk) {
        const result = answer.ok
          ? answer.value.results.find((r) => r.id === id)?.result
          : undefined;
        const message = answer.ok ? 'main returned no result' : answer.error.message;
        this.#queueResult(id, result ?? unreadable(relativePath, message));
      }
    }
  }

  /**
   * Adds one granted chunk of audio files with the tags read before the grant (`results`, in
   * the chunk's order); a new file without them is read now. False on failure.
   */
  #addGranted(
    audio: PickedFile[],
    result: Envelope<GrantResult>,
    results: ReadonlyArray<FileReadResult | undefined> = [],
    counted = false,
  ): boolean {
    if (!result.ok) {
      this.error = result.error.message;
      if (counted) this.#countRead(0, audio.length);
      return false;
    }
    const byPath = new Map(audio.map((item, i) => [item.relativePath, { item, read: results[i] }]));
    const readOf = new Map<string, FileReadResult>();
    // File objects are needed for the first tag read only, and held no longer (the page kept
    // every one, 100,000 after a large add, for nothing).
    const files = new Map<string, File>();
    const granted = result.value.granted.flatMap((g) => {
      const picked = byPath.get(g.relativePath);
      if (!picked) return [];
      const file = picked.item.file as File;
      files.set(g.id, file);
      if (picked.read) readOf.set(g.id, picked.read);
      return [{ ...g, lastModified: picked.item.proven?.lastModified ?? file.lastModified }];
    });
    this.#ignore(result.value.refused);
    const fresh = this.#addRows(granted, counted);
    // Files counted before the grant that make no new row (refused, or in the library already).
    if (counted) this.#countRead(audio.length - fresh.length);
    const unread: typeof fresh = [];
    for (const row of fresh) {
      const read = readOf.get(row.id);
      if (read) this.#queueResult(row.id, read);
      else unread.push(row);
    }
    if (unread.length > 0) {
      void this.#read(
        unread.map(({ id, relativePath }) => ({
          key: id,
          file: files.get(id)!,
          relativePath,
        })),
      );
    }
    return true;
  }

  /** Lists skipped or refused files once each. */
  #ignore(list: readonly SkippedFile[]): void {
    const known = new Set(this.ignored.map((s) => s.relativePath));
    const added: SkippedFile[] = [];
    for (const { relativePath, reason } of list) {
      if (known.has(relativePath)) continue;
      known.add(relativePath);
      added.push({ relativePath, reason });
    }
    if (added.length > 0) this.ignored = [...this.ignored, ...added];
  }

  /**
   * Adds a row, waiting for its tags, for each file not in the library yet (a file added again
   * stays one row; one restored as missing is readable again; one whose tags could not be read, or
   * were not before the app closed, is read again: only a track read can be edited, so it holds
   * nothing of the user's to lose). Returns the rows to read.
   */
  #addRows(
    files: ReadonlyArray<{ id: string; relativePath: string; size: number; lastModified: number }>,
    counted = false,
  ): Array<{ id: string; relativePath: string }> {
    const existing = this.indexById;
    const fresh: LibraryRow[] = [];
    const revived = new Set<string>();
    /** Rows whose tags were never read, with their file as granted now (mended, it changed). */
    const unread = new Map<string, { size: number; lastModified: number }>();
    const seen = new Set<string>();
    for (const file of files) {
      if (seen.has(file.id)) continue;
      seen.add(file.id);
      const index = existing.get(file.id);
      if (index !== undefined) {
        const row = this.rows[index]!;
        if (row.missing) revived.add(file.id);
        if (row.status === 'unreadable') unread.set(file.id, file);
        continue;
      }
      const relativePath = file.relativePath.normalize('NFC');
      fresh.push({
        id: file.id,
        size: file.size,
        lastModified: Math.trunc(file.lastModified),
        status: 'reading',
        draft: {
          file: relativePath,
          primaryMedia: { value: relativePath, source: sharedSource({ kind: 'file-name' }) },
        },
        original: null,
        readFindings: [],
      });
    }
    let rows = this.rows;
    if (revived.size > 0 || unread.size > 0) {
      rows = rows.map((row) => {
        if (!revived.has(row.id) && !unread.has(row.id)) return row;
        const now = unread.get(row.id);
        const again = now
          ? {
              status: 'reading' as const,
              readFindings: noReadFindings,
              size: now.size,
              lastModified: Math.trunc(now.lastModified),
            }
          : {};
        return { ...row, ...again, ...(revived.has(row.id) ? { missing: false } : {}) };
      });
      if (unread.size === 0) this.rows = rows;
    }
    const toRead = [...rows.filter((row) => unread.has(row.id)), ...fresh];
    if (toRead.length > 0) {
      // Rows waiting for their tags change no finding: validated as a batch read is.
      if (!counted) this.readTotal += toRead.length;
      this.#setRows([...rows, ...fresh], fresh.length === 0, true);
      this.#scheduleSave();
    }
    return toRead.map((row) => ({ id: row.id, relativePath: row.draft.file }));
  }

  async #read(files: { key: string; file: File; relativePath: string }[]): Promise<void> {
    this.#reader ??= this.makeReader();
    await this.#reader.read(files, (key, result) => this.#queueResult(key, result));
  }

  /**
   * Counts `done` files of those being read as read, and takes `dropped` off those to be read
   * (an add cut short); the count starts again once every file counted is read.
   */
  #countRead(done: number, dropped = 0): void {
    this.readDone += done;
    this.readTotal -= dropped;
    if (this.readDone >= this.readTotal) {
      this.readDone = 0;
      this.readTotal = 0;
      // Reading is over: the validation and the save held back while it went on run now.
      if (this.#validationTimer) this.#scheduleValidation(true);
      this.#scheduleSave();
    }
  }

  /** Buffers a file's tag result for the next flush. */
  #queueResult(key: string, result: FileReadResult): void {
    this.#pendingResults.push([key, result]);
    // Each flush re-renders and revalidates the whole library: the longer the last one took,
    // the longer results are gathered, so flushes take at most a tenth of the UI thread (on two
    // cores, what the page spends the tags workers and the browser process wait for).
    const delay = this.options.flushDelayMs ?? Math.max(120, 9 * this.#flushCost);
    this.#flushTimer ??= setTimeout(() => this.#flushResults(), delay);
  }

  /** Applies buffered tag results at once: one new array per batch, not per file. */
  #flushResults(): void {
    this.#flushTimer = undefined;
    const started = performance.now();
    const results = new Map(this.#pendingResults);
    this.#pendingResults = [];
    if (results.size === 0) return;
    let rows = this.rows.map((row) => {
      const result = results.get(row.id);
      if (!result || row.status !== 'reading') return row;
      if (!result.draft) {
        return { ...row, status: 'unreadable' as const, readFindings: result.findings };
      }
      return compactRow({
        ...row,
        status: 'ready' as const,
        draft: result.draft,
        original: result.draft,
        readFindings: result.findings,
        ...(result.audio ? { audio: result.audio } : {}),
      });
    });
    rows = withOuterIds(rows);
    this.#countRead(results.size);
    this.#setRows(rows, true, true);
    this.#scheduleSave();
    // Validation is scheduled the same way, earlier: this runs after it.
    afterPaint(() => (this.#flushCost = performance.now() - started));
  }

  /** Resolves once every file added so far has been read, shown and validated. */
  async settled(): Promise<void> {
    while (this.readTotal > 0 || this.#flushTimer) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.validated();
  }

  #scheduleValidation(read = false): void {
    this.#validationPending = true;
    // A pass under way starts the next when it ends; one about to start covers this change.
    if (this.#validation || this.#validationQueued) return;
    if (this.#validationTimer) {
      // Reading is over, or the user changed something: the validation held back runs now.
      if (!read || this.readTotal === 0) {
        clearTimeout(this.#validationTimer);
        this.#validationTimer = undefined;
        this.#queueValidation();
      }
      return;
    }
    // While files are read, tags arrive in batches every moment and each validation covers the
    // whole library (a second at 100,000 tracks): it takes a twentieth of the page's time then,
    // the findings following the rows by a few seconds, and comes at once after the last batch.
    const wait =
      read && this.readTotal > 0
        ? this.#validatedAt + 19 * this.#validationCost - performance.now()
        : 0;
    if (wait > 0) {
      this.#validationTimer = setTimeout(() => {
        this.#validationTimer = undefined;
        this.#queueValidation();
      }, wait);
    } else this.#queueValidation();
  }

  /** Starts a validation after the next paint: the frame that shows an edit is not held up. */
  #queueValidation(): void {
    this.#validationQueued = true;
    afterPaint(() => {
      this.#validationQueued = false;
      if (!this.#validationPending) return;
      this.#validationPending = false;
      this.#validationCost = 0;
      this.#validation = findingsSteps(this.#rows, this.#rules, this.#memo, this.#found);
      this.#validationStep();
    });
  }

  /**
   * Runs the pass under way for a slice of a frame, then lets the page paint and answer input
   * before the next slice: validating 100,000 tracks takes about a second, never in one piece.
   */
  #validationStep = (): void => {
    const steps = this.#validation;
    if (!steps) return;
    const started = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done) {
        this.#validation = undefined;
        this.#validationCost += performance.now() - started;
        this.#validatedAt = performance.now();
        this.#show(step.value);
        if (this.#validationPending) this.#scheduleValidation(true);
        return;
      }
      if (performance.now() - started >= validationSlice) break;
    }
    this.#validationCost += performance.now() - started;
    setTimeout(this.#validationStep, 0);
  };

  /** Shows a pass's findings: what did not change is the same value, and nothing follows it. */
  #show(found: LibraryFindings): void {
    this.#found = found;
    if (this.findings !== found.findings) this.findings = found.findings;
    if (this.albums !== found.albums) this.albums = found.albums;
  }

  /** Validates the library now, in one piece (the findings otherwise follow a change shortly). */
  validateNow(): Map<string, readonly Finding[]> {
    const started = performance.now();
    this.#validation?.return(noFindings);
    this.#validation = undefined;
    this.#validationPending = false;
    clearTimeout(this.#validationTimer);
    this.#validationTimer = undefined;
    this.#show(finish(findingsSteps(this.#rows, this.#rules, this.#memo, this.#found)));
    this.#validatedAt = performance.now();
    this.#validationCost = this.#validatedAt - started;
    return this.findings;
  }

  /** Resolves once the findings match the rows. */
  async validated(): Promise<void> {
    while (this.#validationPending || this.#validation) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** The reviewed album a track belongs to (as of the last validation). */
  albumOf(id: string): AlbumReview | undefined {
    const i = this.#albumIndexById.get(id);
    return i === undefined ? undefined : this.albums.review.albums[i];
  }

  /**
   * The key and label a track is grouped under: its reviewed album's (tracks that disagree on
   * its UPC or title stay in it), else, until validated, its own album's.
   */
  albumKeyOf(row: LibraryRow): { key: string; label: string } {
    const album = this.albumOf(row.id);
    return album && album.indexes.length > 1 ? album : albumOf(row.draft);
  }

  /** The row ids of a reviewed album's tracks. */
  albumIds(album: AlbumReview): string[] {
    return album.indexes.map((i) => this.albums.ids[i]!);
  }

  /** Applies an album's one-click fix ("Use … on all 12 tracks") as one undoable command. */
  applyAlbumFix(fix: AlbumFieldFix): number {
    const edits: DraftEdit[] = [];
    for (const i of fix.indexes) {
      const row = this.row(this.albums.ids[i] ?? '');
      if (row?.status === 'ready') edits.push({ id: row.id, draft: withAlbumFix(row.draft, fix) });
    }
    return this.applyEdits(fix.label, edits);
  }

  /** Applies edits as one undoable command; edits that change nothing are dropped. */
  applyEdits(label: string, edits: readonly DraftEdit[]): number {
    const index = this.indexById;
    const changes: DraftChange[] = [];
    const seen = new Set<string>();
    for (const edit of edits) {
      const i = index.get(edit.id);
      if (i === undefined || seen.has(edit.id)) continue;
      const row = this.rows[i]!;
      if (row.status !== 'ready' || sameDraft(row.draft, edit.draft)) continue;
      seen.add(edit.id);
      changes.push({ id: edit.id, before: row.draft, after: edit.draft });
    }
    if (changes.length === 0) return 0;
    this.#stack.push({ label, changes });
    this.#replace(changes.map((c) => [c.id, c.after]));
    return changes.length;
  }

  /**
   * Gives an artist `id` on every track of the library that names that artist, whatever its
   * role there, as one undoable command ('' sends the name again). The number of tracks changed.
   */
  setArtistIdEverywhere(name: string, id: string): number {
    const edits: DraftEdit[] = [];
    for (const row of this.rows) {
      if (row.status !== 'ready') continue;
      const draft = withArtistIdByName(row.draft, name, id);
      if (draft !== row.draft) edits.push({ id: row.id, draft });
    }
    const label = id.trim()
      ? `Set id of ${name} everywhere`
      : `Send ${name}'s name as id everywhere`;
    return this.applyEdits(label, edits);
  }

  /**
   * For each artist (a name and an id), how many tracks of the library name that artist with
   * another id than it sends (one pass over the library for them all).
   */
  tracksWithOtherArtistIds(artists: ReadonlyArray<{ name: string; id: string }>): number[] {
    if (artists.length === 0) return [];
    const drafts: DraftTrack[] = [];
    for (const row of this.rows) if (row.status === 'ready') drafts.push(row.draft);
    return tracksWithOtherArtistIds(drafts, artists);
  }

  /** Sets one column to `text` on every given track (a manual edit). */
  setCell(ids: readonly string[], column: Column, text: string, label?: string): number {
    if (!column.set) return 0;
    const edits: DraftEdit[] = [];
    for (const id of ids) {
      const row = this.row(id);
      if (!row || row.status !== 'ready' || column.get(row.draft) === text) continue;
      edits.push({ id, draft: column.set(row.draft, text, manual) });
    }
    return this.applyEdits(label ?? `Edit ${column.label}`, edits);
  }

  /** The row with this id. */
  row(id: string): LibraryRow | undefined {
    const i = this.indexById.get(id);
    return i === undefined ? undefined : this.rows[i];
  }

  /** Reverts the last command. */
  undo(): void {
    const command = this.#stack.undo();
    if (!command) return;
    this.#run(command, 'undo');
    this.#undone(`Undone: ${command.label}`);
  }

  /** Applies the last undone command again. */
  redo(): void {
    const command = this.#stack.redo();
    if (!command) return;
    this.#run(command, 'redo');
    this.#undone(`Redone: ${command.label}`);
  }

  #undone(text: string): void {
    this.lastUndo = {
      text,
      version: this.editVersion,
      count: (this.lastUndo?.count ?? 0) + 1,
    };
  }

  /** Applies a command (`redo`) or reverts it (`undo`). */
  #run(command: LibraryCommand, way: 'undo' | 'redo'): void {
    if (command.kind === 'rows') {
      if (way === 'undo') {
        const rows = [...this.rows];
        // A file added again since keeps its new row.
        const present = new Set(rows.map((row) => row.id));
        for (const { index, row } of command.removed) {
          if (!present.has(row.id)) rows.splice(index, 0, row);
        }
        this.rows = rows;
        this.ignored = [...command.ignored, ...this.ignored];
      } else {
        const gone = new Set(command.removed.map((r) => r.row.id));
        this.rows = this.rows.filter((row) => !gone.has(row.id));
        const ignored = new Set(command.ignored);
        this.ignored = this.ignored.filter((file) => !ignored.has(file));
      }
      this.#changed();
      return;
    }
    if (command.kind === 'flag') {
      this.#applyFlag(command.ids, command.flag, way === 'redo' ? command.on : !command.on);
      this.#changed();
      return;
    }
    this.#replace(command.changes.map((c) => [c.id, way === 'undo' ? c.before : c.after]));
  }

  /** After any change: the undo labels, the views that follow edits, and the saved session. */
  #changed(): void {
    this.undoLabel = this.#stack.undoLabel;
    this.redoLabel = this.#stack.redoLabel;
    this.editVersion++;
    this.#scheduleSave(true);
  }

  /** Gives rows new drafts in place: a copy of the array, and only the edited rows touched. */
  #replace(drafts: Array<[string, DraftTrack]>): void {
    const index = this.indexById;
    const rows = this.rows.slice();
    for (const [id, draft] of drafts) {
      const i = index.get(id);
      if (i !== undefined) rows[i] = { ...rows[i]!, draft };
    }
    this.#setRows(rows, true);
    this.#changed();
  }

  /**
   * Where each row stood against a catalog at the last pre-flight (by row id), for the grid's
   * Catalog column and filter; dropped when the rows change, as it no longer holds then.
   */
  standing = $state.raw<{ catalog: string; byId: Map<string, TrackStandingView> } | null>(null);

  /** Leaves rows out of deliveries, or takes them back in; kept in the session. */
  setExcluded(ids: readonly string[], excluded: boolean): number {
    return this.#setFlag(ids, 'excluded', excluded);
  }

  /**
   * Accepts masters cut short as they are (a label that knows the file is right), or takes the
   * acceptance back; kept in the session and sent with the delivery, where main applies it.
   */
  setAcceptCutShort(ids: readonly string[], accepted: boolean): number {
    return this.#setFlag(ids, 'acceptCutShort', accepted);
  }

  /** Sets or clears a row's flag on the given rows, as one undoable command; how many changed. */
  #setFlag(ids: readonly string[], flag: RowFlag, on: boolean): number {
    const changed = this.#applyFlag(ids, flag, on);
    if (changed.length === 0) return 0;
    const tracks = `${changed.length} track${changed.length === 1 ? '' : 's'}`;
    const label =
      flag === 'excluded'
        ? `${on ? 'Exclude' : 'Include'} ${tracks}`
        : `${on ? 'Accept' : 'Stop accepting'} ${tracks} cut short`;
    this.#stack.push({ kind: 'flag', label, flag, ids: changed, on });
    this.#changed();
    return changed.length;
  }

  /** Sets a flag on the rows that don't have it so; the ids of those changed. */
  #applyFlag(ids: readonly string[], flag: RowFlag, on: boolean): string[] {
    const wanted = new Set(ids);
    const changed: string[] = [];
    const rows = this.rows.map((row) => {
      if (!wanted.has(row.id) || !!row[flag] === on) return row;
      changed.push(row.id);
      const next = { ...row };
      if (on) next[flag] = true;
      else delete next[flag];
      return next;
    });
    this.#setRows(rows, true);
    return changed;
  }

  /** The masters rules of the active profile (Settings), which the grid's findings follow. */
  setRules(rules: DeliveryRules | null): void {
    if (rules === this.#rules) return;
    this.#rules = rules;
    this.#scheduleValidation();
  }

  #rules: DeliveryRules | null = null;

  /**
   * Empties the library, as one undoable command (the saved session follows; main keeps the
   * one before as a copy to restore).
   */
  clear(): void {
    if (this.rows.length === 0 && this.ignored.length === 0) return;
    this.#takeOut(
      this.rows.map((row) => row.id),
      `Clear ${this.rows.length} track${this.rows.length === 1 ? '' : 's'}`,
      this.ignored,
    );
  }

  /** Takes tracks out of the library, as one undoable command; how many were taken out. */
  remove(ids: readonly string[]): number {
    const n = ids.filter((id) => this.indexById.has(id)).length;
    if (n === 0) return 0;
    return this.#takeOut(ids, `Remove ${n} track${n === 1 ? '' : 's'}`, []);
  }

  #takeOut(ids: readonly string[], label: string, ignored: SkippedFile[]): number {
    const wanted = new Set(ids);
    const removed: Array<{ index: number; row: LibraryRow }> = [];
    this.rows.forEach((row, index) => {
      if (wanted.has(row.id)) removed.push({ index, row });
    });
    const command: LibraryCommand = { kind: 'rows', label, removed, ignored };
    this.#stack.push(command);
    this.#run(command, 'redo');
    return removed.length;
  }

  /** The session as saved: rows and ignored files. */
  toSession(): LibrarySession {
    return { version: 1, rows: this.rows.map(sessionRowOf), ignored: this.ignored };
  }

  /**
   * Restores the saved session, if any: its rows show at once (the first page, then the rest),
   * and rows whose file main finds gone or changed are marked missing as the checks come in.
   */
  async load(): Promise<void> {
    this.#listenForChecks();
    this.#opening = true;
    const result = await this.api.loadLibrary({});
    this.#opening = false;
    if (!result.ok) {
      this.#early = [];
      this.error = result.error.message;
      return;
    }
    this.previous = result.value.previous;
    // Rows the page has already (added before the answer) stay; main's are then not shown.
    await this.#open(result.value, this.rows.length === 0);
  }

  /**
   * The larger library main kept before the last save that shrank it (Clear, Remove), offered
   * for restoring even after a restart; null when there is none.
   */
  previous = $state.raw<{ tracks: number; savedAt: string } | null>(null);

  /** Files of the reopened library main is still checking against the disk (0: none). */
  filesChecking = $state(0);
  /** How many of those are checked. */
  filesChecked = $state(0);

  /** Makes the kept larger library the current one (the current is kept in its place). */
  async restorePrevious(): Promise<void> {
    await this.saveNow();
    this.#listenForChecks();
    this.#opening = true;
    const result = await this.api.restorePreviousLibrary({});
    this.#opening = false;
    if (!result.ok) {
      this.#early = [];
      this.error = result.error.message;
      return;
    }
    this.#stack.clear();
    this.undoLabel = undefined;
    this.redoLabel = undefined;
    this.previous = result.value.previous;
    this.rows = [];
    this.ignored = [];
    this.#saved = { rows: this.rows, ignored: this.ignored };
    await this.#open(result.value, true);
    this.editVersion++;
  }

  /** The load whose file checks this page follows (`library:files-checked`). */
  #load = '';
  /** Checks that came while a load's answer was on its way. */
  #early: Array<EventPayloads['library:files-checked']> = [];
  #opening = false;
  #offChecks: (() => void) | undefined;
  /** Rows main found gone or changed in this load, shown or still to come. */
  #gone = new Set<string>();
  /** Of those, the ones not marked on the rows yet (marked a batch at a time). */
  #toMark: string[] = [];
  #markTimer: ReturnType<typeof setTimeout> | undefined;
  /** Resolves once every page of the loaded session is in: saves wait for it. */
  #loading: Promise<void> = Promise.resolve();

  #listenForChecks(): void {
    if (this.#offChecks) return;
    this.#offChecks = this.api.on('library:files-checked', (checked) => {
      if (checked.load === this.#load) this.#checked(checked);
      else if (this.#opening) this.#early.push(checked);
    });
  }

  /** Shows the loaded session (when `show`), page by page, and follows its file checks. */
  async #open(loaded: SentLoad, show: boolean): Promise<void> {
    this.#load = loaded.load;
    this.#gone = new Set(loaded.missing);
    this.#toMark = [];
    this.filesChecked = 0;
    this.filesChecking = loaded.checking;
    const early = this.#early.filter((checked) => checked.load === loaded.load);
    this.#early = [];
    const session = loaded.session;
    if (!session) {
      this.#saved = { rows: [], ignored: [] };
      return;
    }
    let done = () => {};
    this.#loading = new Promise((resolve) => (done = resolve));
    try {
      // What main holds: only rows changed from here on are sent.
      if (show) {
        this.rows = session.rows.map((row) => restoredRow(row, this.#gone));
        this.ignored = session.ignored;
        this.#saved = { rows: this.rows, ignored: this.ignored };
      } else this.#saved = session;
      for (const checked of early) this.#checked(checked);
      const rest: StoredRow[] = [];
      for (let offset = session.rows.length; offset < loaded.total;) {
        const page = await this.api.libraryRows({ load: loaded.load, offset });
        if (!page.ok) {
          this.error = `The saved library could not be shown whole: ${page.error.message}`;
          break;
        }
        if (page.value.rows.length === 0) break;
        rest.push(...page.value.rows);
        offset += page.value.rows.length;
      }
      if (rest.length === 0) return;
      // The rest at once: one more render and validation, not one per page.
      const { ignored } = this.#saved;
      if (show) {
        const more = rest.map((row) => restoredRow(row, this.#gone));
        this.rows = [...this.rows, ...more];
        this.#saved = { rows: [...this.#saved.rows, ...more], ignored };
      } else this.#saved = { rows: [...this.#saved.rows, ...rest], ignored };
    } finally {
      done();
    }
  }

  /** Follows a batch of file checks: progress now, the rows it found gone marked shortly. */
  #checked({ missing, checked, total }: EventPayloads['library:files-checked']): void {
    this.filesChecked = checked;
    // The load's answer counts the rows; the checks count the files (rows may have none).
    this.filesChecking = checked >= total ? 0 : total;
    if (missing.length === 0) return;
    for (const id of missing) this.#gone.add(id);
    this.#toMark.push(...missing);
    // Batches that come close together are marked together: one render and validation.
    if (this.#markTimer === undefined) {
      this.#markTimer = setTimeout(() => this.#markMissing(), 200);
    }
  }

  #markMissing(): void {
    this.#markTimer = undefined;
    const ids = new Set(this.#toMark);
    this.#toMark = [];
    const marked = new Map<object, LibraryRow>();
    const rows = this.rows.map((row) => {
      if (!ids.has(row.id) || row.missing) return row;
      const next = { ...row, missing: true };
      marked.set(row, next);
      return next;
    });
    if (marked.size === 0) return;
    this.#setRows(rows, true);
    // `missing` is the page's own, not saved: a row marked is not a change to send.
    this.#saved = {
      rows: this.#saved.rows.map((row) => marked.get(row) ?? row),
      ignored: this.#saved.ignored,
    };
  }

  /** When the user's oldest change not yet being saved was made (page time). */
  #unsavedSince: number | undefined;

  /**
   * Saves a second after the last change; a change of the user's is saved at most ten seconds
   * after it was made, even while tags keep coming in more often than once a second (a large add):
   * otherwise the edits made during an add waited for its end. Tags alone are not saved while
   * files are read, but once reading is over: they can be read again from the files, and saving a
   * 100,000-file add as it goes (1,130 requests, 160 MB) put half a minute on the add on two
   * cores, where after it nothing waits for it. (A debounce alone let them go whenever tags came
   * more than a second apart, as they do once a flush of them costs over 111 ms.)
   */
  #scheduleSave(byUser = false): void {
    const now = performance.now();
    if (byUser) this.#unsavedSince ??= now;
    else if (this.#unsavedSince === undefined && this.readTotal > 0) {
      // `#countRead` schedules it when the last file is read.
      clearTimeout(this.#saveTimer);
      return;
    }
    const latest =
      this.#unsavedSince === undefined
        ? Infinity
        : this.#unsavedSince + (this.options.saveMaxWaitMs ?? 10_000) - now;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = setTimeout(
      () => void this.saveNow(),
      Math.max(0, Math.min(this.options.saveDelayMs ?? 1000, latest)),
    );
  }

  /**
   * Saves what changed since the last save (also what the debounce ends in): rows are compared
   * by identity, and only those added or edited are serialized and sent, a thousand per request,
   * so an edit on a 100,000-track library never stringifies the library.
   */
  saveNow(): Promise<void> {
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    this.#unsavedSince = undefined;
    // Not before the loaded session is in whole: main holds rows the page has not yet.
    this.#saving = this.#saving.then(() => this.#loading).then(() => this.#sendChanges());
    return this.#saving;
  }

  /** The rows and ignored files main has, as this page last sent or loaded them. */
  #saved: { rows: readonly { id: string }[]; ignored: unknown } = { rows: [], ignored: [] };

  async #sendChanges(): Promise<void> {
    const now = { rows: this.rows, ignored: this.ignored };
    const changes = libraryChanges(this.#saved, now);
    if (!changes) return;
    // Each part's rows are made ready as it goes (the end of an add changes thousands at once).
    for (const part of splitPatch(changes)) {
      const rows = part.rows.map((row) => sentRow(sessionRowOf(row)));
      const result = await this.api.patchLibrary({ patch: { ...part, rows } });
      if (!result.ok) {
        // Nothing marked saved: the next save sends these changes again.
        this.error = `The library could not be saved: ${result.error.message}`;
        return;
      }
    }
    this.#saved = now;
  }
}

/** A saved row as the page shows it: `missing` when main found its file gone or changed. */
function restoredRow(stored: StoredRow, gone: ReadonlySet<string>): LibraryRow {
  const row = compactRow(sessionRow(stored));
  // Without the File object tags can't be read after a restart: ask for the file again.
  if (row.status !== 'reading') return { ...row, missing: gone.has(row.id) };
  return {
    ...row,
    status: 'unreadable',
    readFindings: [
      { level: 'error', message: 'tags were not read before the app closed; add the file again' },
    ],
    missing: gone.has(row.id),
  };
}

/**
 * A row come from a tags worker or a saved library, holding once what other rows repeat: each
 * arrives with its own copy of every source, status, empty findings list and audio name
 * (docs/development.md, what the page holds).
 */
function compactRow(row: LibraryRow): LibraryRow {
  const draft = withSharedSources(row.draft);
  const original =
    row.original === row.draft ? draft : row.original && withSharedSources(row.original);
  return {
    ...row,
    draft,
    original,
    status: rowStatuses[row.status],
    readFindings: sharedFindings(row.readFindings),
    ...(row.audio && { audio: withSharedNames(row.audio) }),
  };
}

const rowStatuses: Readonly<Record<RowStatus, RowStatus>> = {
  reading: 'reading',
  ready: 'ready',
  unreadable: 'unreadable',
};

/**
 * A track read without a finding (most): one empty list for them all, not one each (rows are
 * replaced, never changed, so nothing adds to it).
 */
const noReadFindings: Finding[] = [];
const sharedFindings = (findings: Finding[]) => (findings.length === 0 ? noReadFindings : findings);

/** A row as the session keeps it: what the page alone needs (missing) stays out. */
function sessionRowOf(row: LibraryRow): LibrarySession['rows'][number] {
  return {
    id: row.id,
    size: row.size,
    lastModified: row.lastModified,
    status: row.status,
    draft: row.draft,
    original: row.original,
    readFindings: row.readFindings,
    ...(row.excluded ? { excluded: true } : {}),
    ...(row.audio ? { audio: row.audio } : {}),
    ...(row.acceptCutShort ? { acceptCutShort: true } : {}),
  };
}

/** The first `n` bytes of a Blob (FileReader where `arrayBuffer` is missing, as in jsdom). */
async function firstBytes(blob: Blob, n: number): Promise<Uint8Array> {
  const head = blob.slice(0, n);
  if (typeof head.arrayBuffer === 'function') return new Uint8Array(await head.arrayBuffer());
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(head);
  });
}

/** The result for a file whose tags could not be read at all. */
function unreadable(file: string, message: string): FileReadResult {
  return {
    file,
    draft: null,
    findings: [{ level: 'error', message: `the tags could not be read: ${message}` }],
  };
}

/**
 * Resolves in a new task, so the page can handle input and paint in between. Not `setTimeout(0)`:
 * chained timers wait at least 4 ms each, which 10,000 slices of a large drop would add up.
 */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** How long a slice of validation runs before the page may paint (ms): half a frame. */
const validationSlice = 8;

/** Runs `task` in a task just after the next paint (in the next task where nothing paints). */
function afterPaint(task: () => void): void {
  if (typeof requestAnimationFrame === 'function') {
    requestAnimationFrame(() => setTimeout(task, 0));
  } else setTimeout(task, 0);
}

/** Drafts are never mutated: an edit that changes nothing hands back the same object. */
function sameDraft(a: DraftTrack, b: DraftTrack): boolean {
  return a === b;
}

/** Gives derived outer_ids to ready rows; manual and CSV ones are kept. */
function withOuterIds(rows: LibraryRow[]): LibraryRow[] {
  const ready = rows.filter((row) => row.status === 'ready');
  const assigned = assignOuterIds(ready.map((row) => row.draft));
  // The ready rows keep their order in `rows`: the next one's assignment is the next in line.
  let next = 0;
  return rows.map((row) => {
    if (row.status !== 'ready') return row;
    const draft = assigned[next++]!;
    const kind = row.draft.outerId?.source.kind;
    if (kind === 'manual' || kind === 'csv') return row;
    if (draft.outerId?.value === row.draft.outerId?.value) return row;
    return { ...row, draft, original: row.original === row.draft ? draft : row.original };
  });
}
