/**
 * The library session on disk (`<dataDir>/library/`): the renderer's rows and, beside them, the
 * absolute path of each granted file so that after a restart main can grant again the files that
 * are still there, unchanged, without the user picking them again.
 *
 * Saved by what changed, not whole: `session.json` is a base snapshot and `session.journal`
 * beside it holds the patches saved since (one JSON line each, appended and flushed), so a save of
 * one edit on a 100,000-track library writes one row. Each line names the base it follows (its
 * epoch) and a sequence number; the base records the last line folded into it. Compaction folds
 * the journal into a new base (written atomically) once the journal outgrows it, then empties the
 * journal: a crash between the two leaves lines the base already holds, skipped by their number.
 * A line cut short by kill -9 is the last one and is dropped (and cut off before the next
 * append), so a crash loses at most the save it interrupted, never the library.
 *
 * A save that leaves fewer tracks than the session held (Clear, Remove) first folds the journal
 * and keeps that session as `session.previous.json`, so a library emptied by mistake can be
 * restored, even after a restart.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, stat, truncate } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import * as v from 'valibot';

import { CourierError } from '../errors.js';
import { readJsonIfExists, writeFileAtomic } from '../files/atomic-file.js';
import type { FileGrants } from '../files/file-grants.js';
import { applyLibraryPatch, type LibraryPatch, LibraryPatchSchema } from './library-patch.js';
import {
  type LibrarySession,
  LibrarySessionSchema,
  type SessionRow,
  SessionRowSchema,
} from './session-schema.js';

const FileSchema = v.strictObject({
  id: v.string(),
  path: v.string(),
  size: v.number(),
  mtimeMs: v.number(),
});

/** Where a stored row's `original` says it is its draft. */
const sameAsDraft = 'draft';

/**
 * A row as the base keeps it: `original` is `'draft'` when it is the draft itself (a track not
 * edited since its tags were read, most of a library), which halves what a reopen reads.
 */
const StoredRowSchema = v.strictObject({
  ...SessionRowSchema.entries,
  original: v.union([SessionRowSchema.entries.original, v.literal(sameAsDraft)]),
});

const StoredSchema = v.strictObject({
  version: v.literal(1),
  files: v.array(FileSchema),
  session: v.strictObject({
    ...LibrarySessionSchema.entries,
    rows: v.pipe(v.array(StoredRowSchema), v.maxLength(200_000)),
  }),
  /** The journal this base follows, and the last of its lines folded in (none: a fresh base). */
  journal: v.optional(v.strictObject({ epoch: v.string(), seq: v.number() })),
});

const LineSchema = v.strictObject({
  epoch: v.string(),
  seq: v.number(),
  patch: LibraryPatchSchema,
  files: v.array(FileSchema),
});

type Stored = v.InferOutput<typeof StoredSchema>;
type StoredRow = v.InferOutput<typeof StoredRowSchema>;
type StoredFile = v.InferOutput<typeof FileSchema>;

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

/** The session file under a data directory. */
export function sessionPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.json');
}

/** The journal of patches saved since the base. */
export function journalPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.journal');
}

/** Where the larger session before a shrinking save is kept. */
function previousPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.previous.json');
}

/** Where the kept session waits while the two are swapped (a fixed name: found after a crash). */
function swapPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.swap.json');
}

/** The journal outgrows its base (and this floor) before it is folded in. */
const compactFloorBytes = 4 * 1024 * 1024;

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

/** Saves and restores of one data directory, one after another. */
const queues = new Map<string, Promise<unknown>>();

function serial<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(dataDir) ?? Promise.resolve()).then(async () => {
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
  const raw = await readJsonIfExists<unknown>(path).catch(() => undefined);
  const parsed = raw === undefined ? null : v.safeParse(StoredSchema, raw);
  return parsed?.success ? parsed.output.session.rows.length : -1;
}

/** The library as base and journal make it, rows and files by id. */
interface Materialized {
  exists: boolean;
  rows: Map<string, SessionRow>;
  ignored: LibrarySession['ignored'];
  files: Map<string, StoredFile>;
  journal: Journal;
}

/**
 * Reads the base and applies the journal lines that follow it. A line cut short (the last, by a
 * crash) is dropped and cut off the file, so the next append starts on a line of its own.
 */
async function materialize(dataDir: string): Promise<Materialized> {
  const base = sessionPath(dataDir);
  const text = await readFile(base, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  let stored: Stored | undefined;
  if (text !== undefined) {
    const parsed = v.safeParse(StoredSchema, JSON.parse(text));
    if (!parsed.success) {
      throw new CourierError(
        'invalid_session',
        `The saved library (${base}) is not readable; clear the library to start again.`,
      );
    }
    stored = parsed.output;
  }
  const lines = await readFile(journalPath(dataDir), 'utf8').catch(() => '');
  // A base from before the journal follows 'base'; with no base yet, the journal's first line.
  const epoch = stored
    ? (stored.journal?.epoch ?? 'base')
    : (/^\{"epoch":"([^"]+)"/.exec(lines)?.[1] ?? randomUUID());
  const journal: Journal = {
    epoch,
    seq: stored?.journal?.seq ?? 0,
    ids: new Set(),
    baseBytes: text?.length ?? 0,
    journalBytes: 0,
  };
  const library = {
    rows: new Map((stored?.session.rows ?? []).map((row) => [row.id, sessionRow(row)])),
    ignored: stored?.session.ignored ?? [],
  };
  const files = new Map((stored?.files ?? []).map((file) => [file.id, file]));
  let exists = stored !== undefined;
  let good = 0;
  for (let start = 0; start < lines.length;) {
    const end = lines.indexOf('\n', start);
    const parsed =
      end < 0 ? undefined : v.safeParse(LineSchema, parseOrUndefined(lines.slice(start, end)));
    if (!parsed?.success) break;
    const line = parsed.output;
    good = end + 1;
    start = end + 1;
    if (line.epoch !== journal.epoch || line.seq <= journal.seq) continue;
    journal.seq = line.seq;
    applyLibraryPatch(library, line.patch);
    for (const file of line.files) files.set(file.id, file);
    exists = true;
  }
  const goodBytes = Buffer.byteLength(lines.slice(0, good));
  if (good < lines.length) await truncate(journalPath(dataDir), goodBytes);
  journal.journalBytes = goodBytes;
  journal.ids = new Set(library.rows.keys());
  journals.set(dataDir, journal);
  return { exists, ...library, files, journal };
}

/** A row as the base keeps it (an original that is its draft written once). */
function storedRow(row: SessionRow): StoredRow {
  if (row.original === null || row.original === row.draft) {
    return row.original === null ? row : { ...row, original: sameAsDraft };
  }
  // Equal in content though not the same object (a row as it came from the page).
  return JSON.stringify(row.original) === JSON.stringify(row.draft)
    ? { ...row, original: sameAsDraft }
    : row;
}

/** A stored row as the session has it: an original that is its draft is the draft itself. */
function sessionRow(row: StoredRow): SessionRow {
  return row.original === sameAsDraft ? { ...row, original: row.draft } : (row as SessionRow);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What main knows of the session, read once per process (or after a restore). */
async function journalOf(dataDir: string): Promise<Journal> {
  return journals.get(dataDir) ?? (await materialize(dataDir)).journal;
}

/** Writes the library as a new base and empties the journal (the base says what it folded in). */
async function writeBase(
  dataDir: string,
  library: { rows: Iterable<SessionRow>; ignored: LibrarySession['ignored']; files: StoredFile[] },
  journal: Journal,
): Promise<void> {
  const session: LibrarySession = { version: 1, rows: [...library.rows], ignored: library.ignored };
  const stored: Stored = {
    version: 1,
    files: library.files,
    session: { ...session, rows: session.rows.map(storedRow) },
    journal: { epoch: journal.epoch, seq: journal.seq },
  };
  const text = `${JSON.stringify(stored)}\n`;
  await writeFileAtomic(sessionPath(dataDir), text);
  // Lines up to `seq` are in the base now; a crash before this truncate only leaves them skipped.
  if (existsSync(journalPath(dataDir))) await truncate(journalPath(dataDir), 0);
  journal.baseBytes = text.length;
  journal.journalBytes = 0;
  journal.ids = new Set(session.rows.map((row) => row.id));
}

/** Folds the journal into the base (nothing to do when it is empty). */
async function compact(dataDir: string): Promise<void> {
  const journal = await journalOf(dataDir);
  if (journal.journalBytes === 0) return;
  const library = await materialize(dataDir);
  const files = [...library.rows.keys()].flatMap((id) => library.files.get(id) ?? []);
  await writeBase(
    dataDir,
    { rows: library.rows.values(), ignored: library.ignored, files },
    library.journal,
  );
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

/** The grant of each row that has one (a row restored but missing keeps its data, not a path). */
function grantedFiles(
  dataDir: string,
  grants: FileGrants,
  rows: readonly SessionRow[],
): StoredFile[] {
  const files: StoredFile[] = [];
  const checks = [...(unchecked.get(dataDir) ?? [])];
  for (const row of rows) {
    try {
      const granted = grants.get(row.id);
      files.push({
        id: granted.id,
        path: granted.path,
        size: granted.size,
        mtimeMs: granted.mtimeMs,
      });
    } catch {
      // Not checked yet since the session was reopened: its saved path stays.
      const saved = checks.find((pending) => pending.has(row.id))?.get(row.id);
      if (saved) files.push(saved);
      // Else a row main never granted (restored but missing): keep its data, not a path.
    }
  }
  return files;
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
    const files = grantedFiles(dataDir, grants, session.rows);
    await writeBase(dataDir, { rows: session.rows, ignored: session.ignored, files }, journal);
  });
}

/**
 * Saves what changed since the last save: appends the patch (with the paths of the files its rows
 * name) to the journal and flushes it. A patch that leaves fewer tracks keeps the session before
 * it first. The journal is folded into the base after the save, once it outgrows the base.
 */
export function patchLibrarySession(
  dataDir: string,
  grants: FileGrants,
  patch: LibraryPatch,
): Promise<void> {
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
    return journal.journalBytes > Math.max(compactFloorBytes, journal.baseBytes);
  });
  // Folded after the save answers, in turn with the saves that follow it.
  void saved.then(
    (outgrown) => {
      if (outgrown) void serial(dataDir, () => compact(dataDir)).catch(() => undefined);
    },
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

/** A saved session as read, before its files are checked against the disk. */
export interface OpenedSession {
  session: LibrarySession | null;
  /** The saved file of each row that has one, in row order: what `checkSessionFiles` checks. */
  files: SessionFile[];
  /** Rows saved without a file (restored missing before): missing without a check. */
  unfiled: string[];
  previous: PreviousSession | null;
}

/**
 * Reads the saved session without touching the files it names, so its rows can be shown at
 * once; `checkSessionFiles` then grants again those still on disk and unchanged.
 */
export async function openLibrarySession(dataDir: string): Promise<OpenedSession> {
  const library = await serial(dataDir, () => materialize(dataDir));
  if (!library.exists) {
    return { session: null, files: [], unfiled: [], previous: await previousSession(dataDir, 0) };
  }
  const session: LibrarySession = {
    version: 1,
    rows: [...library.rows.values()],
    ignored: library.ignored,
  };
  const files: StoredFile[] = [];
  const unfiled: string[] = [];
  for (const row of session.rows) {
    const file = library.files.get(row.id);
    if (file) files.push(file);
    else unfiled.push(row.id);
  }
  return { session, files, unfiled, previous: await previousSession(dataDir, session.rows.length) };
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

/** Loads the saved session and grants again every file still on disk and unchanged. */
export async function loadLibrarySession(
  dataDir: string,
  grants: FileGrants,
): Promise<LoadedSession> {
  const opened = await openLibrarySession(dataDir);
  const missing = new Set([
    ...opened.unfiled,
    ...(await checkSessionFiles(dataDir, grants, opened.files)),
  ]);
  const rows = opened.session?.rows ?? [];
  return {
    session: opened.session,
    missing: rows.filter((row) => missing.has(row.id)).map((row) => row.id),
    previous: opened.previous,
  };
}
