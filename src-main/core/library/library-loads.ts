/**
 * A saved library opened for a page: the answer carries its first rows as soon as they are read
 * from disk, the rest are read behind it and asked for page by page (the browser host's WebSocket
 * takes at most 64 MB a message, and a 100,000-track session is far more), and its files are checked against the disk in the
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
  type OpenedSession,
  openLibrarySession,
  type PreviousSession,
  type SessionFile,
} from './library-session.js';
import type { LibrarySession, SessionRow } from './session-schema.js';

/**
 * Library rows per message: the app's IPC serialises each answer on main's thread, which took
 * 88–117 ms for 5,000 rows and 21 ms for 1,000 (`bench:library-save` serialises as it does).
 */
export const LIBRARY_PAGE_ROWS = 1_000;

/**
 * Rows in the answer to opening: a screenful and more, read and sent before the rest are read
 * (every row read costs a parse and a check; a reopen shows rows after these only).
 */
export const LIBRARY_FIRST_ROWS = 500;

/** What opening the saved library answers. */
export interface LoadedLibrary {
  /** The session with its first rows (all of them when `total` is no more). */
  session: LibrarySession | null;
  /** Rows the session holds in all. */
  total: number;
  /** Names this load in `rows` requests and in the checked batches. */
  load: string;
  /**
   * Rows known to have no file already (none here: rows restored missing before come with the
   * first batch of checks, once every row is read).
   */
  missing: string[];
  /** Files still to check against the disk, at most (0: nothing follows); batches say exactly. */
  checking: number;
  /** The larger library kept before the last save that shrank it (Clear, Remove), if any. */
  previous: PreviousSession | null;
}

/** The rows of a load as they are read, and who waits for more. */
interface Reading {
  /**
   * Every row read, in order; a row is let go (`undefined`) once the page asks for the rows
   * after it: held to the last page, the rows of a 100,000-track library took main's heap to
   * 380 MB while it was paged, and its collections paused main up to 650 ms.
   */
  rows: Array<SessionRow | undefined>;
  /** Rows before this one were let go. */
  released: number;
  done: boolean;
  error: Error | undefined;
  /** Called whenever rows come (or the reading ends). */
  waiters: Set<() => void>;
}

/** The loads of one data directory's library: the last one's rows still to be paged. */
export class LibraryLoads {
  /** The rows of the last load, read or being read, until its last page is sent. */
  readonly #loads = new Map<string, Reading>();

  constructor(
    private readonly dataDir: string,
    private readonly grants: FileGrants,
    private readonly log: Logger,
  ) {}

  /**
   * Opens the saved library: answers with its first page as soon as those rows are read (the
   * rest are read behind it); the files' checks report through `onChecked` once all are read.
   */
  async open(onChecked: (batch: CheckedBatch & { load: string }) => void): Promise<LoadedLibrary> {
    const opened = await openLibrarySession(this.dataDir);
    const load = randomUUID();
    const reading: Reading = {
      rows: [],
      released: 0,
      done: false,
      error: undefined,
      waiters: new Set(),
    };
    this.#loads.clear();
    this.#loads.set(load, reading);
    const read = this.#read(opened, reading);
    // Reading a file by id waits for its check, and so for the rows to be read first.
    const checks = read.then(async ({ files, unfiled }) => {
      // Rows saved without a file (restored missing before) are missing without a check.
      if (files.length === 0) {
        if (unfiled.length > 0) onChecked({ load, missing: unfiled, checked: 0, total: 0 });
        return;
      }
      let first = true;
      await checkSessionFiles(this.dataDir, this.grants, files, {
        onBatch: (batch) => {
          onChecked({
            load,
            ...batch,
            missing: first ? [...unfiled, ...batch.missing] : batch.missing,
          });
          first = false;
        },
      });
    });
    this.grants.track(checks);
    checks.catch((error: unknown) => {
      void this.log.log(
        'warn',
        `The saved library's files were not all checked: ${(error as Error).message ?? String(error)}`,
      );
    });
    const first = await this.#page(reading, load, 0, LIBRARY_FIRST_ROWS);
    return {
      session: opened.exists ? { version: 1, rows: first, ignored: opened.ignored } : null,
      total: opened.total,
      load,
      missing: [],
      checking: opened.total,
      previous: opened.previous,
    };
  }

  /** Reads the rows of a load to the end, waking those who wait for them as they come. */
  async #read(
    opened: OpenedSession,
    reading: Reading,
  ): Promise<{ files: SessionFile[]; unfiled: string[] }> {
    const files: SessionFile[] = [];
    const unfiled: string[] = [];
    const wake = () => {
      for (const waiter of reading.waiters) waiter();
    };
    try {
      for await (const { row, file } of opened.rows) {
        reading.rows.push(row);
        if (file) files.push(file);
        else unfiled.push(row.id);
        if (reading.rows.length % LIBRARY_FIRST_ROWS === 0) wake();
      }
    } catch (error) {
      reading.error = error as Error;
      throw error;
    } finally {
      reading.done = true;
      wake();
    }
    return { files, unfiled };
  }

  /** Makes the kept larger library the current one, then opens it. */
  async restorePrevious(
    onChecked: (batch: CheckedBatch & { load: string }) => void,
  ): Promise<LoadedLibrary> {
    await makePreviousCurrent(this.dataDir);
    return this.open(onChecked);
  }

  /** The rows of `load` from `offset`, a page at a time, once they are read. */
  async rows(load: string, offset: number): Promise<SessionRow[]> {
    const reading = this.#loads.get(load);
    if (!reading) {
      throw new CourierError(
        'not_found',
        'The saved library was opened again since; reopen the app to show it.',
      );
    }
    return this.#page(reading, load, offset);
  }

  async #page(
    reading: Reading,
    load: string,
    offset: number,
    size = LIBRARY_PAGE_ROWS,
  ): Promise<SessionRow[]> {
    const end = offset + size;
    while (!reading.done && reading.rows.length < end) {
      await new Promise<void>((resolve) => {
        const waiter = () => {
          reading.waiters.delete(waiter);
          resolve();
        };
        reading.waiters.add(waiter);
      });
    }
    if (reading.error) {
      this.#loads.delete(load);
      throw reading.error instanceof CourierError
        ? reading.error
        : new CourierError(
            'invalid_session',
            `The saved library could not be read whole: ${reading.error.message}`,
          );
    }
    if (offset < reading.released) {
      throw new CourierError(
        'not_found',
        'The saved library was paged past these rows already; reopen the app to show it.',
      );
    }
    // The page has every row before the one it asks for (no further than the rows there are:
    // the offset is the page's word, and a hostile one may be any number).
    const upTo = Math.min(offset, reading.rows.length);
    for (; reading.released < upTo; reading.released++) reading.rows[reading.released] = undefined;
    // The last page sent, the rows of this load are no longer kept.
    if (reading.done && end >= reading.rows.length) this.#loads.delete(load);
    return reading.rows.slice(offset, end) as SessionRow[];
  }
}
