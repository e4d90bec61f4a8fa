/**
 * Edits a large saved library over and over in a child process, for crash tests of the fold:
 * `node --import tsx test/support/library-fold-child.ts DATA_DIR START`. Save `i` retitles the
 * `foldEditRows` rows from `(i * foldEditRows) % foldLibraryRows` on as `Save <i>` and sets the
 * `counter` row's title to `i`, so the journal outgrows its share of the base and is folded in
 * every few saves; prints `saved <i>` once a save is flushed. Runs until killed.
 */
import { FileGrants } from '../../src-main/core/files/file-grants.js';
import { patchLibrarySession } from '../../src-main/core/library/library-session.js';
import type { SessionRow } from '../../src-main/core/library/session-schema.js';
import { sessionRow } from './session-rows.js';

/** Rows in the library the test saves first. */
export const foldLibraryRows = 20_000;
/** Rows each save edits (with the counter, as many as a patch holds). */
export const foldEditRows = 999;

/** Row `id` titled `title` (each carries a few hundred bytes of lyrics, as a real row might). */
export const foldRow = (id: string, title: string): SessionRow =>
  sessionRow(id, title, { folder: '', lyrics: 'la '.repeat(150) });

/** The ids save `i` edits. */
export const foldEdited = (i: number): string[] =>
  Array.from({ length: foldEditRows }, (_, k) => `r${(i * foldEditRows + k) % foldLibraryRows}`);

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [dataDir, start] = process.argv.slice(2);
  const grants = new FileGrants();
  for (let i = Number(start ?? 0); ; i++) {
    await patchLibrarySession(dataDir!, grants, {
      rows: [...foldEdited(i).map((id) => foldRow(id, `Save ${i}`)), foldRow('counter', String(i))],
      removed: [],
    });
    process.stdout.write(`saved ${i}\n`);
  }
}
