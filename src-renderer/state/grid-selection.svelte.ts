/* eslint-disable svelte/prefer-svelte-reactivity -- Sets here are local lookups of one computation. */
/**
 * The grid's selection, in view coordinates: an active cell and a rectangular range from an
 * anchor to it; the tracks it covers (an album header standing for every track it shows).
 */
import { GridView, isAlbumHeader } from './grid-view.svelte.js';

/** A cell position in the current view: row index in `lines`, column index in `visible`. */
export interface CellPos {
  row: number;
  col: number;
}

/** The selection over the grid's view. */
export class GridSelection extends GridView {
  active = $state<CellPos>({ row: 0, col: 1 });
  anchor = $state<CellPos>({ row: 0, col: 1 });

  /** The selected range, normalised. */
  readonly range = $derived.by(() => ({
    top: Math.min(this.anchor.row, this.active.row),
    bottom: Math.max(this.anchor.row, this.active.row),
    left: Math.min(this.anchor.col, this.active.col),
    right: Math.max(this.anchor.col, this.active.col),
  }));

  /** Ids of the selected rows (album headers in the range are not tracks). */
  readonly selectedIds = $derived(
    this.lines
      .slice(this.range.top, this.range.bottom + 1)
      .filter((line): line is string => !isAlbumHeader(line)),
  );

  /** The selected tracks, an album header standing for every track it shows. */
  readonly selectedTracks = $derived.by(() => {
    const ids = new Set<string>();
    for (const line of this.lines.slice(this.range.top, this.range.bottom + 1)) {
      if (isAlbumHeader(line)) for (const id of line.ids) ids.add(id);
      else if (line !== undefined) ids.add(line);
    }
    return [...ids];
  });

  protected override columnsChanged(): void {
    this.active = this.clampPos(this.active);
    this.anchor = this.clampPos(this.anchor);
  }

  /** Moves the active cell to a track's line (e.g. a pre-flight finding's "show"). */
  reveal(id: string): boolean {
    const index = this.lines.indexOf(id);
    if (index >= 0) this.select({ row: index, col: this.active.col });
    return index >= 0;
  }

  /** Whether a cell is in the selected range. */
  isSelected(pos: CellPos): boolean {
    const r = this.range;
    return pos.row >= r.top && pos.row <= r.bottom && pos.col >= r.left && pos.col <= r.right;
  }

  /** Selects one cell, or extends the range to it. */
  select(pos: CellPos, extend = false): void {
    const clamped = this.clampPos(pos);
    this.active = clamped;
    if (!extend) this.anchor = clamped;
  }

  /** Selects every row (all columns). */
  selectAll(): void {
    this.anchor = { row: 0, col: 0 };
    this.active = { row: Math.max(0, this.lines.length - 1), col: this.visible.length - 1 };
  }

  /** Selects whole rows from `from` to `to` (row header click). */
  selectRows(from: number, to: number): void {
    this.anchor = this.clampPos({ row: from, col: 0 });
    this.active = this.clampPos({ row: to, col: this.visible.length - 1 });
  }

  /** A position moved inside the view. */
  protected clampPos(pos: CellPos): CellPos {
    return {
      row: Math.max(0, Math.min(this.lines.length - 1, pos.row)),
      col: Math.max(0, Math.min(this.visible.length - 1, pos.col)),
    };
  }
}
