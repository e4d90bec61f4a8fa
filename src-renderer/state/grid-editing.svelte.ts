/* eslint-disable svelte/prefer-svelte-reactivity -- Sets here are local lookups of one computation. */
/**
 * Editing through the grid: a cell edited inline (Enter commits, Ctrl+Enter to every selected
 * row), an album header's cells editing the whole album, the inspector's edits of the
 * selection; album-level columns reach whole albums while album-wide editing is on. Every change
 * goes through the library as one undoable command.
 */
import type { DraftTrack } from '../../src-main/core/model/track.js';
import { type Column, type ColumnId, columns } from './columns.js';
import { type CellPos, GridSelection } from './grid-selection.svelte.js';
import { type AlbumHeader, isAlbumColumn, isAlbumHeader } from './grid-view.svelte.js';
import type { DraftEdit } from './library-state.svelte.js';

/** Editing on top of the selection. */
export class GridEditing extends GridSelection {
  /** Album-level columns edited on one track apply to every track of its album. */
  albumWide = $state(true);
  editing = $state<{ pos: CellPos; text: string } | null>(null);
  /** Last message of a grid operation ("Pasted 12 cells", why a paste was refused). */
  notice = $state('');

  /** Starts editing the active cell, optionally replacing its text with what was typed. */
  startEdit(initial?: string): boolean {
    const column = this.visible[this.active.col];
    const header = this.headerAt(this.active.row);
    if (header && column) {
      if (!isAlbumColumn(column.id)) {
        this.notice = `${column.label} is set per track; the album header edits album, UPC and album type`;
        return false;
      }
      this.editing = { pos: { ...this.active }, text: initial ?? header.values[column.id] ?? '' };
      return true;
    }
    const row = this.rowAt(this.active.row);
    if (!column?.editable || !row || row.status !== 'ready') {
      if (column && !column.editable) this.notice = `${column.label} can't be edited here`;
      return false;
    }
    this.editing = { pos: { ...this.active }, text: initial ?? column.get(row.draft) };
    return true;
  }

  /** Ends editing: commits (to the edited row, or every selected row with `toSelection`). */
  commitEdit(toSelection = false): void {
    const editing = this.editing;
    if (!editing) return;
    this.editing = null;
    const column = this.visible[editing.pos.col];
    const line = this.lines[editing.pos.row];
    if (!column || line === undefined) return;
    if (isAlbumHeader(line)) {
      this.editAlbum(line, column.id, editing.text);
      return;
    }
    const id = line;
    const ids = toSelection && this.selectedIds.includes(id) ? this.selectedIds : [id];
    this.setCells(this.albumWideIds(column.album, ids), column, editing.text);
  }

  /** Ends editing without a change. */
  cancelEdit(): void {
    this.editing = null;
  }

  /**
   * Sets an album-level column on every track of an album shown under its header, as one
   * command (tracks the filter hides are left alone: the header speaks for what it shows).
   */
  editAlbum(header: AlbumHeader, id: ColumnId, text: string): number {
    if (!isAlbumColumn(id)) return 0;
    const column = columns[id];
    return this.setCells(header.ids, column, text, `Set ${column.label} of ${header.label}`);
  }

  /**
   * Applies `change` to every selected track as one command (the inspector's edits of nested
   * fields); album-level changes reach whole albums when album-wide editing is on.
   */
  editSelection(label: string, change: (draft: DraftTrack) => DraftTrack, album = false): number {
    const ids = album ? this.albumWideIds(true, this.selectedIds) : this.selectedIds;
    const edits: DraftEdit[] = [];
    for (const id of ids) {
      const row = this.library.row(id);
      if (row?.status === 'ready') edits.push({ id, draft: change(row.draft) });
    }
    const n = this.library.applyEdits(label, edits);
    this.notice = n > 1 ? `${label}: ${n} tracks` : '';
    return n;
  }

  /** Expands ids to whole albums for album-level fields when album-wide editing is on. */
  protected albumWideIds(album: boolean | undefined, ids: readonly string[]): string[] {
    if (!album || !this.albumWide) return [...ids];
    const keys = new Set(
      ids
        .map((id) => this.library.row(id))
        .filter((r) => r)
        .map((r) => this.library.albumKeyOf(r!).key),
    );
    // Tracks with no album of their own (grouped by folder) are not expanded.
    const expandable = [...keys].filter((k) => !k.startsWith('folder:'));
    if (expandable.length === 0) return [...ids];
    const wanted = new Set(expandable);
    const extra = this.library.rows
      .filter((row) => row.status === 'ready' && wanted.has(this.library.albumKeyOf(row).key))
      .map((row) => row.id);
    return [...new Set([...ids, ...extra])];
  }

  /** Sets one column's text on tracks as one command, with a notice when several changed. */
  protected setCells(ids: readonly string[], column: Column, text: string, label?: string): number {
    const n = this.library.setCell(ids, column, text, label);
    this.notice = n > 1 ? `${label ?? `Edit ${column.label}`}: ${n} tracks` : '';
    return n;
  }

  /** Sets one column on the selected rows (the inspector's multi-row edit). */
  setOnSelection(id: ColumnId, text: string): number {
    const column = columns[id];
    return this.setCells(this.albumWideIds(column.album, this.selectedIds), column, text);
  }
}
