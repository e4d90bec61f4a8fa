import type { LibraryState } from './library-state.svelte.js';

/**
 * The Library's status line: the grid's last notice ("Removed 2 tracks (Undo brings them
 * back)"), unless an Undo or Redo came after it and made it stale — then what that Undo or Redo
 * did, until the next edit or notice.
 */
export class StatusLine {
  /** The undo shown last, and the grid's notice when it happened. */
  #latched = { count: 0, notice: '' };

  constructor(
    /** The grid's notice and the library, read each time (a view's props may change). */
    private readonly sources: () => {
      grid: { readonly notice: string };
      library: Pick<LibraryState, 'lastUndo' | 'editVersion'>;
    },
  ) {}

  /** The line to show. */
  get text(): string {
    const { grid, library } = this.sources();
    const undo = library.lastUndo;
    const notice = grid.notice;
    // The first read after an Undo notes the notice it made stale (plain fields, not state:
    // only a new Undo changes them).
    if (undo && undo.count !== this.#latched.count) this.#latched = { count: undo.count, notice };
    const current = undo && undo.version === library.editVersion;
    return current && notice === this.#latched.notice ? undo.text : notice;
  }
}
