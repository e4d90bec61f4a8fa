import type { LoadedLibrary } from './library-loads.js';
import { type LibrarySession, sentRow, type StoredRow } from './session-schema.js';

/**
 * A load as it crosses to the page: a row whose original is its draft says so (`sentRow`)
 * instead of carrying a copy. JSON, the browser host's wire, would write that draft twice, and
 * the page would hold both: twice the memory of a reopened library, and every row's original
 * no longer the draft it is.
 */
export interface SentLoad extends Omit<LoadedLibrary, 'session'> {
  session: (Omit<LibrarySession, 'rows'> & { rows: StoredRow[] }) | null;
}

/** `loaded` with its rows as sent (`SentLoad`). */
export function sentLoad(loaded: LoadedLibrary): SentLoad {
  const { session } = loaded;
  return { ...loaded, session: session && { ...session, rows: session.rows.map(sentRow) } };
}
