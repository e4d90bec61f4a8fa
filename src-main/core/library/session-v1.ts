/**
 * Libraries saved before the base was one line per row: `session.json`, one JSON document (and
 * `session.previous.json`, `session.swap.json` beside it). The first use of such a library
 * rewrites each document as a base of lines (`session-base.ts`) following the same journal, so
 * the journal's lines still apply, then removes the old one. Each step is atomic or repeatable: a
 * crash part way leaves the old document, the new base, or both (the new one wins).
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

import * as v from 'valibot';

import { CourierError } from '../errors.js';
import { writeStreamAtomic } from '../files/atomic-file.js';
import { baseChunks, type BaseHeader, FileSchema } from './session-base.js';
import { LibrarySessionSchema, StoredRowSchema } from './session-schema.js';

const V1Schema = v.strictObject({
  version: v.literal(1),
  files: v.array(FileSchema),
  session: v.strictObject({
    ...LibrarySessionSchema.entries,
    rows: v.pipe(v.array(StoredRowSchema), v.maxLength(200_000)),
  }),
  journal: v.optional(v.strictObject({ epoch: v.string(), seq: v.number() })),
});

/** Rewrites one old document as a base of lines at `to`. */
async function convert(from: string, to: string): Promise<void> {
  const parsed = v.safeParse(V1Schema, JSON.parse(await readFile(from, 'utf8')));
  if (!parsed.success) {
    throw new CourierError(
      'invalid_session',
      `The saved library (${from}) is not readable; clear the library to start again.`,
    );
  }
  const { files, session, journal } = parsed.output;
  const byId = new Map(files.map((file) => [file.id, file]));
  const header: BaseHeader = {
    version: 2,
    rows: session.rows.length,
    ids: session.rows.map((row) => row.id),
    ignored: session.ignored,
    ...(journal ? { journal } : {}),
  };
  async function* lines(): AsyncGenerator<string> {
    for (const row of session.rows) {
      const file = byId.get(row.id);
      yield JSON.stringify({ id: row.id, ...(file ? { file } : {}), row });
    }
  }
  await writeStreamAtomic(to, baseChunks(header, lines()));
}

/**
 * Brings the old documents under `libraryDir` to the current form (`session` is the current
 * base's path); true when there was anything to bring.
 */
export async function migrateV1Session(libraryDir: string, session: string): Promise<boolean> {
  const old = {
    session: join(libraryDir, 'session.json'),
    previous: join(libraryDir, 'session.previous.json'),
    swap: join(libraryDir, 'session.swap.json'),
  };
  if (!existsSync(old.session) && !existsSync(old.previous) && !existsSync(old.swap)) return false;
  // A swap of old documents a crash stopped is finished first, as it was then.
  if (existsSync(old.swap)) {
    await rename(old.swap, existsSync(old.session) ? old.previous : old.session);
  }
  const previous = join(libraryDir, 'session.previous.jsonl');
  for (const [from, to] of [
    [old.previous, previous],
    [old.session, session],
  ] as const) {
    if (!existsSync(from)) continue;
    if (!existsSync(to)) await convert(from, to);
    await rm(from, { force: true });
  }
  return true;
}
