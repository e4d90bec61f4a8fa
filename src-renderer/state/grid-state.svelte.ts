/**
 * The grid's state over the library, in layers of one concept each: the columns' layout
 * (grid-layout), the view — filter, sort, group by album (grid-view), the selection
 * (grid-selection), editing (grid-editing) and operations on the selection (grid-bulk). This
 * top layer maps the keyboard onto them, as a spreadsheet does.
 */
import { GridBulk } from './grid-bulk.svelte.js';

export { type ReplaceOptions } from './grid-bulk.svelte.js';
export { type CellPos, type CellRange, type ClickMods } from './grid-selection.svelte.js';
export {
  type AlbumHeader,
  type GridLine,
  isAlbumColumn,
  isAlbumHeader,
  type LevelFilter,
  type RowStanding,
  type StandingFilter,
} from './grid-view.svelte.js';

/** The keys of a keyboard event the grid reacts to. */
export interface GridKey {
  key: string;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

/** The grid over one library. */
export class GridState extends GridBulk {
  /** Handles one key press; true when the grid used it. `pageRows` is how many rows fit. */
  key(event: GridKey, pageRows = 20): boolean {
    const mod = event.ctrlKey || event.metaKey;
    if (this.editing) {
      switch (event.key) {
        case 'Enter':
          this.commitEdit(mod);
          if (!mod)
            this.select({ row: this.active.row + (event.shiftKey ? -1 : 1), col: this.active.col });
          return true;
        case 'Tab':
          this.commitEdit();
          this.select({ row: this.active.row, col: this.active.col + (event.shiftKey ? -1 : 1) });
          return true;
        case 'Escape':
          this.cancelEdit();
          return true;
        default:
          return false;
      }
    }
    const { row, col } = this.active;
    const extend = !!event.shiftKey;
    if (mod && !event.altKey) {
      const key = event.key.toLowerCase();
      if (key === 'z' && !event.shiftKey) return this.#run(() => this.library.undo());
      if (key === 'y' || (key === 'z' && event.shiftKey))
        return this.#run(() => this.library.redo());
      if (key === 'd') return this.#run(() => this.fillDown());
      if (key === 'a') return this.#run(() => this.selectAll());
      if (event.key === 'Home') return this.#run(() => this.select({ row: 0, col }, extend));
      if (event.key === 'End')
        return this.#run(() => this.select({ row: this.lines.length - 1, col }, extend));
      return false;
    }
    switch (event.key) {
      case 'ArrowUp':
        return this.#run(() => this.select({ row: row - 1, col }, extend));
      case 'ArrowDown':
        return this.#run(() => this.select({ row: row + 1, col }, extend));
      case 'ArrowLeft':
        return this.#run(() => this.select({ row, col: col - 1 }, extend));
      case 'ArrowRight':
        return this.#run(() => this.select({ row, col: col + 1 }, extend));
      case 'Tab': {
        // Past the first or last column Tab leaves the grid: keyboard users are never trapped.
        const next = col + (event.shiftKey ? -1 : 1);
        if (next < 0 || next >= this.visible.length) return false;
        return this.#run(() => this.select({ row, col: next }));
      }
      case 'PageDown':
        return this.#run(() => this.select({ row: row + pageRows, col }, extend));
      case 'PageUp':
        return this.#run(() => this.select({ row: row - pageRows, col }, extend));
      case 'Home':
        return this.#run(() => this.select({ row, col: 0 }, extend));
      case 'End':
        return this.#run(() => this.select({ row, col: this.visible.length - 1 }, extend));
      case 'Enter':
      case 'F2':
        return this.#run(() => this.startEdit());
      case 'Escape':
        return this.#run(() => this.collapse());
      case 'Delete':
      case 'Backspace':
        return this.#run(() => this.clearRange());
      default:
        if (event.key.length === 1 && !event.altKey) return this.startEdit(event.key);
        return false;
    }
  }

  #run(action: () => unknown): true {
    action();
    return true;
  }
}
