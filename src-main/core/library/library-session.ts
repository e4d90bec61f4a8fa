/**
 * The library session on disk (`<dataDir>/library/session.json`): the renderer's rows and, beside
 * them, the absolute path of each granted file so that after a restart main can grant again the
 * files that are still there, unchanged, without the user picking them again.
 */
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

/** What loading gives: the session (null when none was saved) and the rows whose file is gone. */
export interface LoadedSession {
  session: LibrarySession | null;
  /** Ids of rows whose file is missing or changed since it was added (main can't read it). */
  missing: string[];
}

/** The session file under a data directory. */
export function sessionPath(dataDir: string): string {
  return join(dataDir, 'library', 'session.json');
}

/** Saves the session with the path of every granted file it names, atomically. */
export async function saveLibrarySession(
  dataDir: string,
  grants: FileGrants,
  session: LibrarySession,
): Promise<void> {
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
  await writeJsonAtomic(sessionPath(dataDir), stored);
}

/** Loads the saved session and grants again every file still on disk and unchanged. */
export async function loadLibrarySession(
  dataDir: string,
  grants: FileGrants,
): Promise<LoadedSession> {
  const raw = await readJsonIfExists<unknown>(sessionPath(dataDir));
  if (raw === undefined) return { session: null, missing: [] };
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
  return { session, missing };
}
