/**
 * "Find duplicate audio": asks main which of the library's files hold the same audio (tags and
 * names aside; main hashes the granted files, never paths the page names), with progress, and
 * keeps the answer as groups of rows until the library changes.
 */
import type { CourierApi, EventPayloads, ResultOf } from '../../src-main/ipc/contract.js';
import type { LibraryRow, LibraryState } from './library-state.svelte.js';

/** One group of rows whose audio is the same. */
export type DuplicateGroup = LibraryRow[];

export class DuplicatesState {
  running = $state(false);
  progress = $state<EventPayloads['library:duplicates-progress'] | null>(null);
  result = $state.raw<ResultOf<'findDuplicateAudio'> | null>(null);
  /** The rows the result is about (a changed library makes it stale). */
  #rows: readonly LibraryRow[] = [];
  error = $state('');

  constructor(
    private readonly api: CourierApi,
    private readonly library: LibraryState,
  ) {}

  /** The groups as rows still in the library; null before a check or once the library changed. */
  get groups(): DuplicateGroup[] | null {
    if (!this.result || this.library.rows !== this.#rows) return null;
    return this.result.groups
      .map((ids) => ids.map((id) => this.library.row(id)).filter((r) => r !== undefined))
      .filter((group) => group.length > 1);
  }

  /** Compares every readable file of the library. */
  async find(): Promise<void> {
    if (this.running) return;
    const rows = this.library.rows;
    const ids = rows.filter((row) => !row.missing).map((row) => row.id);
    this.running = true;
    this.error = '';
    this.progress = null;
    const off = this.api.on('library:duplicates-progress', (p) => (this.progress = p));
    try {
      const answer = await this.api.findDuplicateAudio({ ids });
      if (answer.ok) {
        this.result = answer.value;
        this.#rows = rows;
      } else this.error = answer.error.message;
    } finally {
      off();
      this.running = false;
      this.progress = null;
    }
  }
}
