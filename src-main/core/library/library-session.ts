/**
 * The library session on disk (`<dataDir>/library/`): the renderer's rows and, beside them, the
 * absolute path of each granted file so that after a restart main can grant again the files that
 * are still there, unchanged, without the user picking them again.
 *
 * Saved by what changed, not whole: `session.jsonl` is a base snapshot, one line per row
 * (`session-base.ts`), and `session.journal` beside it holds the patches saved since (one JSON
 * line each, appended and flushed), so a save of one edit on a 100,000-track library writes one
 * row. Each line names the base it follows (its epoch) and a sequence number; the base records the
 * last line folded into it. Compaction folds the journal into a new base (on a worker thread,
 * written atomically, unchanged rows copied unparsed) once the journal outgrows a quarter of it
 * (16 MB at most), then empties the journal: a crash between the two leaves lines the base
 * already holds, skipped by their number. A line cut short by kill -9 is the last one and is
 * dropped (and cut off before the next append), so a crash loses at most the save it interrupted,
 * never the library; the new base a crash cut short is removed once plainly abandoned.
 *
 * Opening reads the header and the journal, works out the rows' order, then reads the rows as a
 * stream: the first page can be shown while the rest is still read. A row is checked against the
 * schema as it is read, the journal's as the base's: a row that is not one (a hand-edited file)
 * makes the library unreadable, with the files left as they are.
 *
 * A save that leaves fewer tracks than the session held (Clear, Remove) first folds the journal
 * and keeps that session as `session.previous.jsonl`, so a library emptied by mistake can be
 * restored, even after a restart. A library saved whole in one JSON document (`session.json`,
 * before 2026-11) is rewritten in this form the first time it is used (`session-v1.ts`).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  truncate,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';

import * as v from 'valibot';

import { CourierError } from '../errors.js';
import { writeStreamAtomic } from '../files/atomic-file.js';
import type { FileGrants } from '../files/file-grants.js';
import { startWorkers, stopWorkers } from '../tags/worker-lanes.js';
import { cutJournalLine } from './journal-line.js';
import {
  applyLibraryPatch,
  type LibraryPatch,
  LibraryPatchSchema,
  RowIdSchema,
} from './library-patch.js';
import {
  baseChunks,
  type BaseHeader,
  baseLine,
  BaseLines,
  FileSchema,
  parseBaseLine,
  readHeader,
  type StoredFile,
} from './session-base.js';
import {
  type LibrarySession,
  type SessionRow,
  sessionRow,
  StoredRowSchema,
} from './session-schema.js';
import { migrateV1Session } from './session-v1.js';

/** The most rows a journal line may hold: a longer line would not load. */
const lineRowLimit = 1_000;

/**
 * A journal line as read on opening: its rows are only named (an id each), and checked when
 * they are read (`JournalRow`). Lines saved before patches were cut smaller hold up to a
 * thousand rows: still read.
 */
const LineSchema = v.strictObject({
  epoch: v.string(),
  seq: v.number(),
  patch: v.strictObject({
    ...LibraryPatchSchema.entries,
    rows: v.pipe(v.array(v.looseObject({ id: RowIdSchema })), v.maxLength(lineRowLimit)),
  }),
  files: v.array(FileSchema),
});

/**
 * A row of the journal as it was read, decoded, parsed and checked against the schema only when
 * it is read (or folded): its bytes in the journal (`cutJournalLine`), or the row a line parsed
 * whole gave. Checking every row of a 24 MB journal took 0.45 s of the 1.25 s opening took at
 * 100,000 tracks, before any row could show, and many of those rows are replaced by later lines.
 */
class JournalRow {
  constructor(
    readonly id: string,
    readonly stored: unknown,
  ) {}

  /** The row, checked; a row that is not one (a hand-edited journal) makes the library unreadable. */
  checked(dataDir: string): SessionRow {
    const stored = Buffer.isBuffer(this.stored)
      ? parseOrUndefined(this.stored.toString('utf8'))
      : this.stored;
    const row = v.safeParse(StoredRowSchema, stored);
    // The id the line was cut by is the first; a hand-edited row may name another after it.
    if (!row.success || row.output.id !== this.id) throw unreadable(dataDir);
    return sessionRow(row.output);
  }
}

/**
 * The journal line `bytes[start, end)` parsed, its rows as bytes; undefined if not one (the last
 * line, cut short by a crash).
 */
function parseJournalLine(bytes: Buffer, start: number, end: number) {
  const cut = cutJournalLine(bytes, start, end);
  const text = cut ? cut.rest : bytes.toString('utf8', start, end);
  const parsed = v.safeParse(LineSchema, parseOrUndefined(text));
  if (!parsed.success) return undefined;
  const { patch } = parsed.output;
  const rows = cut
    ? cut.rows.map((row) => new JournalRow(row.id, row.bytes))
    : patch.rows.map((row) => new JournalRow(row.id, row));
  if (rows.length > lineRowLimit || !rows.every((row) => v.is(RowIdSchema, row.id))) {
    return undefined;
  }
  return { ...parsed.output, patch: { ...patch, rows } };
}

/** The error of a saved library that cannot be read. */
function unreadable(dataDir: string): CourierError {
  return new CourierError(
    'invalid_session',
    `The saved library (${sessionPath(dataDir)}) is not readable; clear the library to start again.`,
  );
}

/** A larger library kept before a save that shrank it: how many tracks, and when. */
export interface PreviousSession {
  tracks: number;
  savedAt: string;
}

/** What loading gives: the session (null when none was saved) and the rows whose file is gone. */
export interface LoadedSession {
  session: LibrarySession | null;
  /** Ids of rows whose file is missing or changed since it was added (main can't read it). */
  missing: string[];
  /** The larger library kept before the last save that shrank it, when there is one. */
  previous: PreviousSession | null;
}

/** The base file under a data directory. */
export function sessionPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.jsonl');
}

/** The journal of patches saved since the base. */
export function journalPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.journal');
}

/** Where the larger session before a shrinking save is kept. */
export function previousPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.previous.jsonl');
}

/** Where the kept session waits while the two are swapped (a fixed name: found after a crash). */
function swapPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.swap.jsonl');
}

/**
 * The journal outgrows a quarter of its base (or `quietFoldBytes`), and this floor, before it is
 * folded in.
 */
const compactFloorBytes = 4 * 1024 * 1024;

/**
 * How long saves must pause before a journal past a quarter of its base is folded in. While
 * saves keep coming (files being added: each batch of tags read is a save), a fold waits until
 * the journal outgrows its whole base: each fold copies the whole base, and folding at every
 * quarter while 100,000 rows arrive copies the library over many times.
 */
const compactQuietMs = 1_000;

/** The fold waiting for saves to pause, by data directory. */
const pendingFolds = new Map<string, NodeJS.Timeout>();

/**
 * A journal this long is folded in once saves pause, however large its base: opening the library
 * reads the whole journal before its first row, about 30 ms a MB at 100,000 tracks when each line
 * was parsed whole. A quarter of that library's base (45 MB) put the reopened rows 3.8 s or 5.6 s
 * after the start, as the saves before had left the journal (`bench:scale`). With the rows cut
 * out unparsed (`cutJournalLine`), about 6 ms a MB: a 170 MB journal, the most a quit before the
 * fold leaves beside a 171 MB base, showed rows in 2.1-2.4 s (4.3-5.3 s before; `bench:reopen`).
 */
const quietFoldBytes = 16 * 1024 * 1024;

/** How far a journal has grown: past its whole base, past a quarter of it, or neither. */
function outgrowth(journal: Journal): 'base' | 'quarter' | null {
  const { journalBytes, baseBytes } = journal;
  if (journalBytes > Math.max(compactFloorBytes, baseBytes)) return 'base';
  if (journalBytes > Math.max(compactFloorBytes, Math.min(baseBytes / 4, quietFoldBytes))) {
    return 'quarter';
  }
  return null;
}

/**
 * Folds the journal in after a save, in turn with the saves that follow it: at once when it
 * outgrew its base, else once saves pause (`compactQuietMs`).
 */
function foldAfterSave(dataDir: string, grown: 'base' | 'quarter' | null): void {
  clearTimeout(pendingFolds.get(dataDir));
  pendingFolds.delete(dataDir);
  if (!grown) return;
  const fold = () => {
    pendingFolds.delete(dataDir);
    void serial(dataDir, () => compact(dataDir)).catch(() => undefined);
  };
  if (grown === 'base') return fold();
  // Not holding the process open: a journal left unfolded is folded after the next save.
  pendingFolds.set(dataDir, setTimeout(fold, compactQuietMs).unref());
}

/** What main knows of a data directory's session between saves: no rows, only their ids. */
interface Journal {
  epoch: string;
  /** The last sequence number written (base or journal). */
  seq: number;
  ids: Set<string>;
  baseBytes: number;
  journalBytes: number;
}

const journals = new Map<string, Journal>();

/**
 * The saved files of rows a check in progress has not reached yet, by data directory: a save in
 * the meantime keeps their paths (they are not granted yet, nor known to be gone).
 */
const unchecked = new Map<string, Set<Map<string, StoredFile>>>();

/** Saves, restores and reads of one data directory, one after another. */
const queues = new Map<string, Promise<unknown>>();

function serial<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(dataDir) ?? Promise.resolve()).then(async () => {
    if (await migrateV1Session(join(dataDir, 'library'), sessionPath(dataDir))) {
      journals.delete(dataDir);
    }
    await finishSwap(dataDir);
    return work();
  });
  queues.set(
    dataDir,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * Finishes a swap a crash stopped: the session waiting under the swap name goes where it was
 * going (the current one, if the current was already moved away; else back to the kept one).
 */
async function finishSwap(dataDir: string): Promise<void> {
  const swap = swapPath(dataDir);
  if (!existsSync(swap)) return;
  const to = existsSync(sessionPath(dataDir)) ? previousPath(dataDir) : sessionPath(dataDir);
  await rename(swap, to);
  journals.delete(dataDir);
}

/** The rows of a stored base file, or -1 when there is none (or it can't be read). */
async function storedRows(path: string): Promise<number> {
  const header = await readHeader(path).catch(() => undefined);
  return header ? header.rows : -1;
}

/** A row the base holds, not read yet. */
class BaseRow {
  constructor(readonly id: string) {}
}

/** The library as the base's header and the journal make it, before any row is read. */
interface Plan {
  exists: boolean;
  header: BaseHeader | undefined;
  /** Every row in order: one of the journal's, or one still in the base. */
  rows: Map<string, JournalRow | BaseRow>;
  ignored: LibrarySession['ignored'];
  /** The files the journal's lines name, by row id (the base's are on its lines). */
  files: Map<string, StoredFile>;
  /** Ids of the rows the journal's lines add, change or take out. */
  touched: Set<string>;
  /** Those of them the base has a line for (its saved file, if the journal names none). */
  inBase: Set<string>;
  journal: Journal;
}

/**
 * Reads the base's header and applies the journal lines that follow it to the order of the rows.
 * A line cut short (the last, by a crash) is dropped and cut off the file, so the next append
 * starts on a line of its own.
 */
async function readPlan(dataDir: string): Promise<Plan> {
  await removeAbandonedTemps(dataDir);
  const base = sessionPath(dataDir);
  let header: BaseHeader | undefined;
  try {
    header = await readHeader(base);
  } catch {
    throw new CourierError(
      'invalid_session',
      `The saved library (${base}) is not readable; clear the library to start again.`,
    );
  }
  // Bytes: a line's rows are decoded when they are read (`cutJournalLine`). A journal that is
  // there but cannot be read stops here: taken as empty, the next fold would drop its saves.
  const bytes = await readFile(journalPath(dataDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return Buffer.alloc(0);
    throw new CourierError(
      'invalid_session',
      `The saved library's journal (${journalPath(dataDir)}) cannot be read (${error.code ?? error.message}); the library is left as it is.`,
    );
  });
  // With no base yet, the journal's first line names the epoch.
  const epoch = header
    ? (header.journal?.epoch ?? 'base')
    : (/^\{"epoch":"([^"]+)"/.exec(bytes.toString('utf8', 0, 256))?.[1] ?? randomUUID());
  const journal: Journal = {
    epoch,
    seq: header?.journal?.seq ?? 0,
    ids: new Set(),
    baseBytes: header ? (await stat(base)).size : 0,
    journalBytes: 0,
  };
  await turn();
  const rows = new Map<string, JournalRow | BaseRow>();
  await inTurns(header?.ids ?? [], (id) => rows.set(id, new BaseRow(id)));
  const library = { rows, ignored: header?.ignored ?? [] };
  const files = new Map<string, StoredFile>();
  const touched = new Set<string>();
  const inBase = new Set<string>();
  let exists = header !== undefined;
  let good = 0;
  for (let start = 0; start < bytes.length;) {
    const end = bytes.indexOf(0x0a, start);
    // A turn of the event loop between lines: a long journal is no long pause.
    await turn();
    const line = end < 0 ? undefined : parseJournalLine(bytes, start, end);
    if (!line) break;
    good = end + 1;
    start = end + 1;
    if (line.epoch !== journal.epoch || line.seq <= journal.seq) continue;
    journal.seq = line.seq;
    // A row still a BaseRow when a line first touches it has a line in the base.
    for (const id of [...line.patch.rows.map((row) => row.id), ...line.patch.removed]) {
      if (library.rows.get(id) instanceof BaseRow) inBase.add(id);
    }
    applyLibraryPatch(library, line.patch);
    for (const file of line.files) files.set(file.id, file);
    for (const row of line.patch.rows) touched.add(row.id);
    for (const id of line.patch.removed) touched.add(id);
    exists = true;
  }
  if (good < bytes.length) await truncate(journalPath(dataDir), good);
  journal.journalBytes = good;
  await turn();
  journal.ids = new Set();
  await inTurns(library.rows.keys(), (id) => journal.ids.add(id));
  journals.set(dataDir, journal);
  return { exists, header, ...library, files, touched, inBase, journal };
}

/** A temp file not written for this long was left by a process killed while writing it. */
const abandonedAfterMs = 60_000;

/**
 * Removes the temp files a process killed part way through writing a new base or the kept
 * library left beside them (`writeStreamAtomic`, `keepPrevious`): as large as the library, and
 * never used. One another process is still writing is written every moment, so it stays.
 */
async function removeAbandonedTemps(dataDir: string): Promise<void> {
  const folder = join(dataDir, 'library');
  const names = await readdir(folder).catch(() => [] as string[]);
  const now = Date.now();
  for (const name of names.filter((name) => name.endsWith('.tmp'))) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (info && now - info.mtimeMs > abandonedAfterMs) await rm(path, { force: true });
  }
}

/** Entries a Map or Set of 100,000 takes at once: 10,000 cost a few milliseconds. */
const PER_TURN = 10_000;

/**
 * `add` for each item, a turn of the event loop every `PER_TURN` of them: hashing 100,000 ids
 * into a Map or Set at once held main's event loop for 50–100 ms.
 */
async function inTurns<T>(items: Iterable<T>, add: (item: T) => void): Promise<void> {
  let count = 0;
  for (const item of items) {
    add(item);
    if (++count % PER_TURN === 0) await turn();
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One row of a plan as read: its line as the base holds it, or the row itself, and its file. */
type PlanRow =
  | { line: string; row?: undefined; file?: undefined }
  | { line?: undefined; row: SessionRow; file: StoredFile | undefined };

/** How long reading rows holds main's event loop at most before letting it turn (ms). */
const rowsSlice = 10;

/**
 * The rows of a plan in order. Rows still in the base come as their line, unparsed (`parse`
 * false: a fold copies them as they are) or parsed; the journal's rows come whole, with the file
 * the journal names or else the one the base saved for them.
 */
async function* planRows(dataDir: string, plan: Plan, parse: boolean): AsyncGenerator<PlanRow> {
  // Base lines never asked for (rows taken out, or replaced with their file): not kept if read
  // ahead. Built from what the journal touched, not from every row: nothing to build per row.
  const skip = new Set<string>();
  for (const id of plan.touched) {
    const row = plan.rows.get(id);
    if (!row || (!(row instanceof BaseRow) && plan.files.has(id))) skip.add(id);
  }
  const reader = plan.header ? new BaseLines(sessionPath(dataDir), skip) : undefined;
  let sliceStarted = performance.now();
  try {
    for (const [id, row] of plan.rows) {
      if (row instanceof BaseRow) {
        const line = await reader!.line(id);
        yield parse ? parseLine(dataDir, line) : { line };
      } else {
        const file =
          plan.files.get(id) ??
          (reader && plan.inBase.has(id)
            ? parseLine(dataDir, await reader.line(id)).file
            : undefined);
        yield { row: row.checked(dataDir), file };
      }
      // Rows already in memory (the journal's, a read chunk's lines) come without a turn of the
      // event loop: 10,000 edited rows held main 0.5-1.3 s, answering nothing, while a 100,000-
      // track library reopened (`bench:library-save`).
      if (performance.now() - sliceStarted > rowsSlice) {
        await turn();
        sliceStarted = performance.now();
      }
    }
  } finally {
    await reader?.close();
  }
}

function parseLine(
  dataDir: string,
  line: string,
): { row: SessionRow; file: StoredFile | undefined } {
  try {
    return parseBaseLine(line);
  } catch {
    throw unreadable(dataDir);
  }
}

/** What main knows of the session, read once per process (or after a restore). */
async function journalOf(dataDir: string): Promise<Journal> {
  return journals.get(dataDir) ?? (await readPlan(dataDir)).journal;
}

/**
 * Writes a new base from `lines` (in the order of `ids`) and empties the journal (the base says
 * what it folded in).
 */
async function writeBase(
  dataDir: string,
  library: { ids: string[]; ignored: LibrarySession['ignored']; lines: AsyncIterable<string> },
  journal: Journal,
): Promise<void> {
  const header: BaseHeader = {
    version: 2,
    rows: library.ids.length,
    ids: library.ids,
    ignored: library.ignored,
    journal: { epoch: journal.epoch, seq: journal.seq },
  };
  const bytes = await writeStreamAtomic(sessionPath(dataDir), baseChunks(header, library.lines));
  // Lines up to `seq` are in the base now; a crash before this truncate only leaves them skipped.
  if (existsSync(journalPath(dataDir))) await truncate(journalPath(dataDir), 0);
  journal.baseBytes = bytes;
  journal.journalBytes = 0;
  journal.ids = new Set();
  await inTurns(library.ids, (id) => journal.ids.add(id));
}

/**
 * Folds the journal into the base, on a worker thread (`fold-worker.ts`) so that main's event
 * loop never holds the parsed journal: parsing and collecting tens of thousands of edited rows
 * paused it 50–140 ms at 100,000 tracks. Folded here when no worker thread can run, or when
 * one fails (this thread then says why, or finishes what it left: a fold is safe to repeat).
 */
async function compact(dataDir: string): Promise<void> {
  const known = await journalOf(dataDir);
  if (known.journalBytes === 0) return;
  const [worker] = startWorkers<string, FoldResult>('fold-worker', 1);
  try {
    const folded = worker
      ? await worker.read(dataDir, () => undefined).catch(() => undefined)
      : undefined;
    if (folded) {
      // What the worker wrote follows the journal main knows: its rows and line numbers.
      known.baseBytes = folded.baseBytes;
      known.journalBytes = 0;
      return;
    }
  } finally {
    if (worker) stopWorkers([worker]);
  }
  await foldJournal(dataDir);
}

/** What a fold wrote: the new base's size (null: the journal was empty, nothing to fold). */
export type FoldResult = { baseBytes: number } | null;

/** Folds the journal into the base on this thread: `compact`'s work, and its worker's. */
export async function foldJournal(dataDir: string): Promise<FoldResult> {
  const plan = await readPlan(dataDir);
  if (plan.journal.journalBytes === 0) return null;
  async function* lines(): AsyncGenerator<string> {
    for await (const item of planRows(dataDir, plan, false)) {
      yield item.line ?? baseLine(item.row, item.file);
    }
  }
  await writeBase(
    dataDir,
    { ids: [...plan.rows.keys()], ignored: plan.ignored, lines: lines() },
    plan.journal,
  );
  return { baseBytes: plan.journal.baseBytes };
}

/** Keeps the session as it is before a save that leaves it fewer tracks. */
async function keepPrevious(dataDir: string): Promise<void> {
  await compact(dataDir);
  const current = sessionPath(dataDir);
  if (!existsSync(current)) return;
  // Kept whole before it is replaced: a copy, then a rename, so a crash leaves one or the other.
  const temp = `${previousPath(dataDir)}.${process.pid}.tmp`;
  await copyFile(current, temp);
  await rename(temp, previousPath(dataDir));
}

/** The file of a row that has one (a row restored but missing keeps its data, not a path). */
function fileOf(
  grants: FileGrants,
  checks: ReadonlyArray<Map<string, StoredFile>>,
  row: { id: string },
): StoredFile | undefined {
  try {
    const granted = grants.get(row.id);
    return { id: granted.id, path: granted.path, size: granted.size, mtimeMs: granted.mtimeMs };
  } catch {
    // Not checked yet since the session was reopened: its saved path stays. Else a row main
    // never granted (restored but missing): its data stays, without a path.
    return checks.find((pending) => pending.has(row.id))?.get(row.id);
  }
}

/** The grant of each row that has one. */
function grantedFiles(
  dataDir: string,
  grants: FileGrants,
  rows: ReadonlyArray<{ id: string }>,
): StoredFile[] {
  const checks = [...(unchecked.get(dataDir) ?? [])];
  return rows.flatMap((row) => fileOf(grants, checks, row) ?? []);
}

/** Saves the whole session with the path of every granted file it names, atomically. */
export function saveLibrarySession(
  dataDir: string,
  grants: FileGrants,
  session: LibrarySession,
): Promise<void> {
  return serial(dataDir, async () => {
    if ((await journalOf(dataDir)).ids.size > session.rows.length) await keepPrevious(dataDir);
    // Read again: folding the journal before the copy replaced what main knew.
    const journal = await journalOf(dataDir);
    journal.seq++;
    const checks = [...(unchecked.get(dataDir) ?? [])];
    async function* lines(): AsyncGenerator<string> {
      for (const row of session.rows) yield baseLine(row, fileOf(grants, checks, row));
    }
    await writeBase(
      dataDir,
      { ids: session.rows.map((row) => row.id), ignored: session.ignored, lines: lines() },
      journal,
    );
  });
}

/**
 * Saves what changed since the last save: appends the patch (with the paths of the files its rows
 * name) to the journal and flushes it. A patch that leaves fewer tracks keeps the session before
 * it first. The journal is folded into the base after the save (`foldAfterSave`).
 */
export function patchLibrarySession(
  dataDir: string,
  grants: FileGrants,
  patch: LibraryPatch,
): Promise<void> {
  if (patch.rows.length > lineRowLimit) {
    // The router lets through a hundred at most; a longer line would be dropped at the next load.
    return Promise.reject(
      new CourierError('invalid_input', `A save holds ${lineRowLimit} rows at most.`),
    );
  }
  const saved = serial(dataDir, async () => {
    const before = await journalOf(dataDir);
    // Copied only when rows go: the ids of 100,000 rows are not copied for each edit.
    const after = patch.removed.length > 0 ? new Set(before.ids) : before.ids;
    const size = before.ids.size;
    for (const row of patch.rows) after.add(row.id);
    for (const id of patch.removed) after.delete(id);
    if (after.size < size) await keepPrevious(dataDir);
    // Read again: folding the journal before the copy replaced what main knew.
    const journal = await journalOf(dataDir);
    const line = {
      epoch: journal.epoch,
      seq: journal.seq + 1,
      patch,
      files: grantedFiles(dataDir, grants, patch.rows),
    };
    const text = `${JSON.stringify(line)}\n`;
    await mkdir(dirname(journalPath(dataDir)), { recursive: true });
    const handle = await open(journalPath(dataDir), 'a', 0o600);
    try {
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    journal.seq++;
    journal.ids = after;
    journal.journalBytes += Buffer.byteLength(text);
    return outgrowth(journal);
  });
  void saved.then(
    (grown) => foldAfterSave(dataDir, grown),
    () => undefined,
  );
  return saved.then(() => undefined);
}

/** Makes the session kept before the last shrinking save the current one (the current is kept in its place). */
export async function restorePreviousSession(
  dataDir: string,
  grants: FileGrants,
): Promise<LoadedSession> {
  await makePreviousCurrent(dataDir);
  return loadLibrarySession(dataDir, grants);
}

/**
 * Swaps the session kept before the last shrinking save with the current one, without opening
 * either (`openLibrarySession` reads it then).
 */
export async function makePreviousCurrent(dataDir: string): Promise<void> {
  await serial(dataDir, async () => {
    const [current, previous, swap] = [
      sessionPath(dataDir),
      previousPath(dataDir),
      swapPath(dataDir),
    ];
    if ((await storedRows(previous)) < 0) {
      throw new CourierError('not_found', 'There is no earlier library to restore.');
    }
    // The current session whole in its base first: the journal is empty through the swap.
    await compact(dataDir);
    // Three renames; a crash between any two is finished by `finishSwap` on the next use.
    await rename(previous, swap);
    if (existsSync(current)) await rename(current, previous);
    await rename(swap, current);
    journals.delete(dataDir);
  });
}

/** The previous session, when it holds more tracks than the current one. */
async function previousSession(dataDir: string, rows: number): Promise<PreviousSession | null> {
  const tracks = await storedRows(previousPath(dataDir));
  if (tracks <= rows) return null;
  const info = await stat(previousPath(dataDir));
  return { tracks, savedAt: info.mtime.toISOString() };
}

/** A row's file as the session saved it: where it was, and its size and date then. */
export type SessionFile = StoredFile;

/** A saved row as read, with its saved file (none: restored missing before, main can't read it). */
export interface OpenedRow {
  row: SessionRow;
  file: SessionFile | undefined;
}

/** A saved session opened for reading, before its rows are read. */
export interface OpenedSession {
  /** False when no session was saved. */
  exists: boolean;
  /** Rows the session holds. */
  total: number;
  ignored: LibrarySession['ignored'];
  previous: PreviousSession | null;
  /**
   * The rows in order, read from disk as they are asked for. Saves wait until the last is read
   * (or the reading stops): read them all, or stop with `return()`.
   */
  rows: AsyncGenerator<OpenedRow>;
}

/**
 * Opens the saved session without reading its rows yet (the base's header and the journal only),
 * so that its first rows can be shown while the rest are still read; `checkSessionFiles` then
 * grants again the files still on disk and unchanged.
 */
export function openLibrarySession(dataDir: string): Promise<OpenedSession> {
  return new Promise<OpenedSession>((resolve, reject) => {
    serial(dataDir, async () => {
      const plan = await readPlan(dataDir);
      const total = plan.exists ? plan.rows.size : 0;
      const previous = await previousSession(dataDir, total);
      let finished = () => {};
      const read = new Promise<void>((done) => (finished = done));
      async function* rows(): AsyncGenerator<OpenedRow> {
        try {
          if (!plan.exists) return;
          for await (const item of planRows(dataDir, plan, true)) {
            yield item.row ? item : parseLine(dataDir, item.line);
          }
        } finally {
          finished();
        }
      }
      resolve({ exists: plan.exists, total, ignored: plan.ignored, previous, rows: rows() });
      // The queue holds until the rows are read: no fold replaces the base being read.
      await read;
    }).catch(reject);
  });
}

/** What one batch of checks found. */
export interface CheckedBatch {
  /** Ids of the rows whose file is gone or changed since it was added. */
  missing: string[];
  /** Files checked so far, and in all. */
  checked: number;
  total: number;
}

/**
 * Grants again the files of a reopened session that are still on disk and unchanged (size and
 * date), `concurrency` at a time, in row order; each `batch` files' findings go to `onBatch` as
 * they come. Until its file is checked, a row's saved path is kept by the saves in between.
 * Resolves with the ids of every row whose file is gone or changed.
 */
export async function checkSessionFiles(
  dataDir: string,
  grants: FileGrants,
  files: readonly SessionFile[],
  options: { concurrency?: number; batch?: number; onBatch?: (batch: CheckedBatch) => void } = {},
): Promise<string[]> {
  const pending = new Map(files.map((file) => [file.id, file]));
  const checks = unchecked.get(dataDir) ?? new Set();
  unchecked.set(dataDir, checks.add(pending));
  const batch = Math.max(1, options.batch ?? 500);
  const missing: string[] = [];
  let checked = 0;
  // Missing ids, and files checked, as of the last report.
  let sent = 0;
  let reported = 0;
  const report = () => {
    options.onBatch?.({ missing: missing.slice(sent), checked, total: files.length });
    sent = missing.length;
    reported = checked;
  };
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      try {
        await grants.grant(file.path, { size: file.size, lastModified: Math.trunc(file.mtimeMs) });
      } catch {
        // Gone or changed: the row stays, marked missing.
        missing.push(file.id);
      }
      pending.delete(file.id);
      checked++;
      if (checked - reported >= batch) report();
    }
  };
  try {
    const lanes = Math.max(1, Math.min(options.concurrency ?? 16, files.length));
    await Promise.all(Array.from({ length: lanes }, lane));
    if (checked > reported) report();
  } finally {
    checks.delete(pending);
    if (checks.size === 0) unchecked.delete(dataDir);
  }
  return missing;
}

/** Loads the saved session whole and grants again every file still on disk and unchanged. */
export async function loadLibrarySession(
  dataDir: string,
  grants: FileGrants,
): Promise<LoadedSession> {
  const opened = await openLibrarySession(dataDir);
  const rows: SessionRow[] = [];
  const files: SessionFile[] = [];
  const unfiled: string[] = [];
  for await (const { row, file } of opened.rows) {
    rows.push(row);
    if (file) files.push(file);
    else unfiled.push(row.id);
  }
  const missing = new Set([...unfiled, ...(await checkSessionFiles(dataDir, grants, files))]);
  return {
    session: opened.exists ? { version: 1, rows, ignored: opened.ignored } : null,
    missing: rows.filter((row) => missing.has(row.id)).map((row) => row.id),
    previous: opened.previous,
  };
}
