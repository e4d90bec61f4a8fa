/**
 * What changed in the library since the last save, as it crosses IPC and sits in the session's
 * journal: the rows added or edited (whole rows, by id), the ids taken out, and the order or the
 * ignored files only when those changed. A save of one edit on a 100,000-track library sends one
 * row, not the library. Pure (valibot only): the contract, and so the renderer, imports it.
 */
import * as v from 'valibot';

import { type LibrarySession, LibrarySessionSchema, StoredRowSchema } from './session-schema.js';

/**
 * Rows per patch: a save of many rows is sent as several patches, each serialized, parsed and
 * checked in well under 50 ms (main answers nothing else meanwhile). With 250, checking a patch
 * and collecting after it held main 45–99 ms at 100,000 tracks; with 100, 22–33 ms, the whole
 * save of 10,000 rows as fast (`bench:library-save`). 50, for the page: a row as read is about
 * 1.6 KB of JSON, and a patch of 100 (150 KB) is text V8 keeps in its large-object space, which
 * only a full collection frees. Saving a 100,000-file add so, the page's heap reached 510 MB and
 * its tasks 50–97 ms (one 656 ms) in marking and sending; with 50, no task reached 50 ms.
 */
export const patchRowLimit = 50;

/** A row's id. */
export const RowIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

const ids = v.pipe(v.array(RowIdSchema), v.maxLength(200_000));

/** One patch of the library session. */
export const LibraryPatchSchema = v.strictObject({
  /**
   * Rows added (appended, in this order) or changed (kept in place), whole, as stored: an
   * original that is the draft is sent as `'draft'`, not a second time.
   */
  rows: v.pipe(v.array(StoredRowSchema), v.maxLength(patchRowLimit)),
  /** Ids of rows taken out. */
  removed: ids,
  /** Every row's id in order, when rows were put back in the middle (an undone Remove). */
  order: v.optional(ids),
  /** The files the library lists as not added, when that list changed. */
  ignored: v.optional(LibrarySessionSchema.entries.ignored),
});

/** A patch of the library session. */
export type LibraryPatch = v.InferOutput<typeof LibraryPatchSchema>;

/** A session row, or anything with a stable id that is replaced (never mutated) when it changes. */
interface Identified {
  readonly id: string;
}

/** The library as a patch is applied to it: rows by id, in order (a Map keeps insertion order). */
export interface PatchableLibrary<Row extends Identified = LibrarySession['rows'][number]> {
  rows: Map<string, Row>;
  ignored: LibrarySession['ignored'];
}

/** Applies a patch in place: changed rows keep their place, new rows go last, then the order. */
export function applyLibraryPatch<Row extends Identified>(
  library: PatchableLibrary<Row>,
  patch: {
    rows: readonly Row[];
    removed: readonly string[];
    order?: readonly string[];
    ignored?: LibrarySession['ignored'];
  },
): void {
  for (const row of patch.rows) library.rows.set(row.id, row);
  for (const id of patch.removed) library.rows.delete(id);
  if (patch.order) {
    const before = library.rows;
    library.rows = new Map();
    for (const id of patch.order) {
      const row = before.get(id);
      if (row) library.rows.set(id, row);
    }
    // Rows the order does not name (none, when the renderer sent it) stay, last.
    for (const [id, row] of before) if (!library.rows.has(id)) library.rows.set(id, row);
  }
  if (patch.ignored) library.ignored = patch.ignored;
}

/**
 * What changed from `saved` to `now`, comparing rows by identity (rows are replaced, never
 * mutated, when they change): linear in the rows, with no serialization. `null` when nothing did.
 */
export function libraryChanges<Row extends Identified, Ignored>(
  saved: { rows: readonly Identified[]; ignored: unknown },
  now: { rows: readonly Row[]; ignored: Ignored },
): { rows: Row[]; removed: string[]; order?: string[]; ignored?: Ignored } | null {
  const changed: Row[] = [];
  const removed: string[] = [];
  let order: string[] | undefined;
  if (now.rows.length >= saved.rows.length && sameIds(saved.rows, now.rows)) {
    // The common cases: an edit (the same rows in the same places, some replaced) and an add
    // (those, then new rows). Ids are unique, so nothing is removed or moved: no maps to build,
    // which took 60 ms of the page's thread at the end of adding 100,000 files.
    for (let i = 0; i < now.rows.length; i++) {
      if (now.rows[i] !== saved.rows[i]) changed.push(now.rows[i]!);
    }
  } else {
    const before = new Map(saved.rows.map((row) => [row.id, row]));
    const present = new Set<string>();
    for (const row of now.rows) {
      present.add(row.id);
      if (before.get(row.id) !== row) changed.push(row);
    }
    for (const row of saved.rows) if (!present.has(row.id)) removed.push(row.id);
    // Applying rows and removals keeps the saved order and appends new rows; if that is not
    // the order now (rows put back in the middle), the order goes too.
    const kept = saved.rows.filter((row) => present.has(row.id)).map((row) => row.id);
    const added = now.rows.filter((row) => !before.has(row.id)).map((row) => row.id);
    const expected = [...kept, ...added];
    if (expected.some((id, i) => now.rows[i]!.id !== id)) order = now.rows.map((row) => row.id);
  }
  const ignored = now.ignored !== saved.ignored ? now.ignored : undefined;
  if (changed.length === 0 && removed.length === 0 && !order && ignored === undefined) return null;
  return {
    rows: changed,
    removed,
    ...(order ? { order } : {}),
    ...(ignored !== undefined ? { ignored } : {}),
  };
}

/** Whether `b` starts with the ids of `a`, in the same places. */
function sameIds(a: readonly Identified[], b: readonly Identified[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id) return false;
  return true;
}

/**
 * A patch cut into patches of at most `patchRowLimit` rows' worth, applied in turn to the same
 * effect: the removals, the order and the ignored files go with the last, once every row is
 * there. An edited row weighs two, since it carries its original beside its draft: a patch of
 * 100 edited rows was about 300 KB, and sending it held the page 20–40 ms. Rows may be cut as
 * the page holds them or as they are sent (`sentRow`): they weigh the same.
 */
export function splitPatch<
  Row extends { readonly id: string; readonly original?: unknown; readonly draft?: unknown },
>(patch: {
  rows: Row[];
  removed: string[];
  order?: string[];
  ignored?: LibrarySession['ignored'];
}): Array<{
  rows: Row[];
  removed: string[];
  order?: string[];
  ignored?: LibrarySession['ignored'];
}> {
  const parts: Array<{ rows: Row[]; removed: string[] }> = [];
  let part: Row[] = [];
  let weight = 0;
  for (const row of patch.rows) {
    // An original that is the draft itself goes as a word (`sentRow`): that row weighs one.
    const edited =
      typeof row.original === 'object' && row.original !== null && row.original !== row.draft;
    const rowWeight = edited ? 2 : 1;
    if (weight + rowWeight > patchRowLimit) {
      parts.push({ rows: part, removed: [] });
      part = [];
      weight = 0;
    }
    part.push(row);
    weight += rowWeight;
  }
  if (part.length > 0) parts.push({ rows: part, removed: [] });
  const rest = {
    removed: patch.removed,
    ...(patch.order ? { order: patch.order } : {}),
    ...(patch.ignored ? { ignored: patch.ignored } : {}),
  };
  if (parts.length === 0) return [{ rows: [], ...rest }];
  parts[parts.length - 1] = { rows: parts[parts.length - 1]!.rows, ...rest };
  return parts;
}
