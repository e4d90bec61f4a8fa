/**
 * The library session on disk (`<dataDir>/library/session.json`): the renderer's rows and, beside
 * them, the absolute path of each granted file so that after a restart main can grant again the
 * files that are still there, unchanged, without the user picking them again. A save that leaves
 * fewer tracks than the session held (Clear, Remove) first keeps that session as
 * `session.previous.json`, so a library emptied by mistake can be restored, even after a restart.
 */
import { existsSync } from 'node:fs';
import { copyFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

import * as v from 'valibot';

import { CourierError } from '../errors.js';
import { readJsonIfExists, writeJsonAtomic } from '../files/atomic-file.js';
import type { FileGrants } from '../files/file-grants.js';
import { type LibrarySession, LibrarySessionSchema } from './session-schema.js';

const StoredSchema = v.strictObject({
  version: v.literal(1),
  files: v.array(
    v.strictObject({ id: v.string(), path: v.string(), size: v.number(), mtimeMs: v.number() }),
  ),
  session: LibrarySessionSchema,
});

type Stored = v.InferOutput<typeof StoredSchema>;

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

/** Where the larger session before a shrinking save is kept. */
function previousPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.previous.json');
}

/** Where the kept session waits while the two are swapped (a fixed name: found after a crash). */
function swapPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.swap.json');
}

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
}

/** The rows of a stored session file, or -1 when there is none (or it can't be read). */
async function storedRows(path: string): Promise<number> {
  const raw = await readJsonIfExists<unknown>(path).catch(() => undefined);
  const parsed = raw === undefined ? null : v.safeParse(StoredSchema, raw);
  return parsed?.success ? parsed.output.session.rows.length : -1;
}

/** Saves the session with the path of every granted file it names, atomically. */
export function saveLibrarySession(
  dataDir: string,
  grants: FileGrants,
  session: LibrarySession,
): Promise<void> {
  return serial(dataDir, () => save(dataDir, grants, session));
}

async function save(dataDir: string, grants: FileGrants, session: LibrarySession): Promise<void> {
  const files: Stored['files'] = [];
  for (const row of session.rows) {
    try {
      const granted = grants.get(row.id);
      files.push({
        id: granted.id,
        path: granted.path,
        size: granted.size,
        mtimeMs: granted.mtimeMs,
      });
    } catch {
      // A row main never granted (restored but missing): keep its data, not a path.
    }
  }
  const stored: Stored = { version: 1, files, session };
  const current = sessionPath(dataDir);
  if ((await storedRows(current)) > session.rows.length) {
    // Kept whole before it is replaced: a copy, then a rename, so a crash leaves one or the other.
    const temp = `${previousPath(dataDir)}.${process.pid}.tmp`;
    await copyFile(current, temp);
    await rename(temp, previousPath(dataDir));
  }
  await writeJsonAtomic(current, stored);
}

/** Makes the session kept before the last shrinking save the current one (the current is kept in its place). */
export async function restorePreviousSession(
  dataDir: string,
  grants: FileGrants,
): Promise<LoadedSession> {
  await serial(dataDir, async () => {
    const [current, previous, swap] = [
      sessionPath(dataDir),
      previousPath(dataDir),
      swapPath(dataDir),
    ];
    if ((await storedRows(previous)) < 0) {
      throw new CourierError('not_found', 'There is no earlier library to restore.');
    }
    // Three renames; a crash between any two is finished by `finishSwap` on the next use.
    await rename(previous, swap);
    if (existsSync(current)) await rename(current, previous);
    await rename(swap, current);
  });
  return loadLibrarySession(dataDir, grants);
}

/** The previous session, when it holds more tracks than the current one. */
async function previousSession(dataDir: string, rows: number): Promise<PreviousSession | null> {
  const tracks = await storedRows(previousPath(dataDir));
  if (tracks <= rows) return null;
  const info = await stat(previousPath(dataDir));
  return { tracks, savedAt: info.mtime.toISOString() };
}

/** Loads the saved session and grants again every file still on disk and unchanged. */
export async function loadLibrarySession(
  dataDir: string,
  grants: FileGrants,
): Promise<LoadedSession> {
  await serial(dataDir, async () => undefined);
  const raw = await readJsonIfExists<unknown>(sessionPath(dataDir));
  if (raw === undefined) {
    return { session: null, missing: [], previous: await previousSession(dataDir, 0) };
  }
  const parsed = v.safeParse(StoredSchema, raw);
  if (!parsed.success) {
    throw new CourierError(
      'invalid_session',
      `The saved library (${sessionPath(dataDir)}) is not readable; clear the library to start again.`,
    );
  }
  const { files, session } = parsed.output;
  const regranted = new Set<string>();
  for (const file of files) {
    try {
      await grants.grant(file.path, { size: file.size, lastModified: Math.trunc(file.mtimeMs) });
      regranted.add(file.id);
    } catch {
      // Gone or changed: the row stays, marked missing.
    }
  }
  const missing = session.rows.filter((row) => !regranted.has(row.id)).map((row) => row.id);
  return { session, missing, previous: await previousSession(dataDir, session.rows.length) };
}
