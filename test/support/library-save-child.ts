/**
 * Saves the library over and over in a child process for crash tests: `node --import tsx
 * test/support/library-save-child.ts DATA_DIR START`. Save `i` adds row `r<i>` (every tenth takes `r<i-9>` out instead) and sets the
 * `counter` row's title to `i` (each row carries lyrics, so the journal is folded into its base
 * every few saves); prints `saved <i>` once a save is flushed. Runs until killed.
 */
import { FileGrants } from '../../src-main/core/files/file-grants.js';
import { patchLibrarySession } from '../../src-main/core/library/library-session.js';
import type { SessionRow } from '../../src-main/core/library/session-schema.js';
import { sessionRow } from './session-rows.js';

const [dataDir, start] = process.argv.slice(2);
if (!dataDir) {
  process.stderr.write('usage: library-save-child.ts DATA_DIR START\n');
  process.exit(2);
}
const lyrics = 'la '.repeat(20_000);
const row = (id: string, title: string): SessionRow =>
  sessionRow(id, title, { folder: '', lyrics });
const grants = new FileGrants();
for (let i = Number(start ?? 0); ; i++) {
  // Every tenth save only takes a row out: a shrinking save, which keeps the one before.
  const shrink = i % 10 === 9;
  await patchLibrarySession(dataDir, grants, {
    rows: [...(shrink ? [] : [row(`r${i}`, `Track ${i}`)]), row('counter', String(i))],
    removed: shrink ? [`r${i - 9}`] : [],
  });
  process.stdout.write(`saved ${i}\n`);
}
