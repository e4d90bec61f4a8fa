/**
 * A saved library opened for a page: the answer carries its first rows at once, the rest are
 * asked for page by page (the browser host's WebSocket takes at most 64 MB a message, and a
 * 100,000-track session is far more), and its files are checked against the disk in the
 * background, each batch of findings handed to `onChecked` as it comes. Reading a file by id
 * waits for those checks (`FileGrants.whenGranted`).
 */
import { randomUUID } from 'node:crypto';

import { CourierError } from '../errors.js';
import type { FileGrants } from '../files/file-grants.js';
import type { Logger } from '../log.js';
import {
  type CheckedBatch,
  checkSessionFiles,
  makePreviousCurrent,
  openLibrarySession,
  type PreviousSession,
} from './library-session.js';
import type { LibrarySession, SessionRow } from './session-schema.js';

/** Library rows per message. */
export const LIBRARY_PAGE_ROWS = 5_000;

/** What opening the saved library answers. */
export interface LoadedLibrary {
  /** The session with its first rows (all of them when `total` is no more). */
  session: LibrarySession | null;
  /** Rows the session holds in all. */
  total: number;
  /** Names this load in `rows` requests and in the checked batches. */
  load: string;
  /** Rows known to have no file already (restored missing before). */
  missing: string[];
  /** Files still to check against the disk (0: nothing follows). */
  checking: number;
  /** The larger library kept before the last save that shrank it (Clear, Remove), if any. */
  previous: PreviousSession | null;
}

/** The loads of one data directory's library: the last one's rows still to be paged. */
export class LibraryLoads {
  /** The rows of the last load still to be paged, by load. */
  readonly #pages = new Map<string, SessionRow[]>();

  constructor(
    private readonly dataDir: string,
    private readonly grants: FileGrants,
    private readonly log: Logger,
  ) {}

  /** Opens the saved library; the files' checks report through `onChecked`. */
  async open(onChecked: (batch: CheckedBatch & { load: string }) => void): Promise<LoadedLibrary> {
    const opened = await openLibrarySession(this.dataDir);
    const load = randomUUID();
    const rows = opened.session?.rows ?? [];
    this.#pages.clear();
    if (rows.length > LIBRARY_PAGE_ROWS) this.#pages.set(load, rows);
    if (opened.files.length > 0) {
      const checks = checkSessionFiles(this.dataDir, this.grants, opened.files, {
        onBatch: (batch) => onChecked({ load, ...batch }),
      });
      this.grants.track(checks);
      checks.catch((error: unknown) => {
        void this.log.log(
          'warn',
          `The saved library's files were not all checked: ${(error as Error).message ?? String(error)}`,
        );
      });
    }
    return {
      session: opened.session && { ...opened.session, rows: rows.slice(0, LIBRARY_PAGE_ROWS) },
      total: rows.length,
      load,
      missing: opened.unfiled,
      checking: opened.files.length,
      previous: opened.previous,
    };
  }

  /** Makes the kept larger library the current one, then opens it. */
  async restorePrevious(
    onChecked: (batch: CheckedBatch & { load: string }) => void,
  ): Promise<LoadedLibrary> {
    await makePreviousCurrent(this.dataDir);
    return this.open(onChecked);
  }

  /** The rows of `load` from `offset`, a page at a time. */
  rows(load: string, offset: number): SessionRow[] {
    const rows = this.#pages.get(load);
    if (!rows) {
      throw new CourierError(
        'not_found',
        'The saved library was opened again since; reopen the app to show it.',
      );
    }
    const end = offset + LIBRARY_PAGE_ROWS;
    // The last page sent, the rows of this load are no longer kept.
    if (end >= rows.length) this.#pages.delete(load);
    return rows.slice(offset, end);
  }
}
