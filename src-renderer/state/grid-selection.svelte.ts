/* eslint-disable svelte/prefer-svelte-reactivity -- Sets here are local lookups of one computation. */
/**
 * The grid's selection, in view coordinates: an active cell and the range from an anchor to it,
 * plus the ranges Ctrl/Cmd-click added before it. Every operation on the selection applies to
 * the union of the ranges; an album header in a range stands for every track it shows.
 */
import { GridView, isAlbumHeader } from './grid-view.svelte.js';

/** A cell position in the current view: row index in `lines`, column index in `visible`. */
export interface CellPos {
  row: number;
  col: number;
}

/** A rectangle of cells in view coordinates, bounds included. */
export interface CellRange {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** The modifier keys of a click on a cell. */
export interface ClickMods {
  /** Shift: extend the last range to the cell. */
  shiftKey?: boolean;
  /** Ctrl (Cmd on macOS): add the cell (or row) as a range of its own. */
  ctrlKey?: boolean;
  metaKey?: boolean;
}

/** The selection over the grid's view. */
export class GridSelection extends GridView {
  active = $state<CellPos>({ row: 0, col: 1 });
  anchor = $state<CellPos>({ row: 0, col: 1 });
  /** The ranges added before the current one (Ctrl/Cmd-click), oldest first. */
  earlier = $state.raw<CellRange[]>([]);

  /** The current range (anchor to active), normalised. */
  readonly range = $derived.by(() => ({
    top: Math.min(this.anchor.row, this.active.row),
    bottom: Math.max(this.anchor.row, this.active.row),
    left: Math.min(this.anchor.col, this.active.col),
    right: Math.max(this.anchor.col, this.active.col),
  }));

  /** Every selected range, the current one last. */
  readonly ranges = $derived<readonly CellRange[]>([...this.earlier, this.range]);

  /** Line indexes of the selected rows, in view order, each once. */
  readonly selectedLines = $derived.by((): number[] => {
    if (this.earlier.length === 0) {
      const { top, bottom } = this.range;
      return Array.from({ length: Math.max(0, bottom - top + 1) }, (_, i) => top + i);
    }
    const lines = new Set<number>();
    for (const r of this.ranges) for (let i = r.top; i <= r.bottom; i++) lines.add(i);
    return [...lines].sort((a, b) => a - b);
  });

  /** Ids of the selected rows (album headers in the ranges are not tracks). */
  readonly selectedIds = $derived(
    this.selectedLines
      .map((i) => this.lines[i])
      .filter((line): line is string => typeof line === 'string'),
  );

  /** The selected tracks, an album header standing for every track it shows. */
  readonly selectedTracks = $derived.by(() => {
    const ids = new Set<string>();
    for (const i of this.selectedLines) {
      const line = this.lines[i];
      if (isAlbumHeader(line)) for (const id of line.ids) ids.add(id);
      else if (line !== undefined) ids.add(line);
    }
    return [...ids];
  });

  protected override columnsChanged(): void {
    this.active = this.clampPos(this.active);
    this.anchor = this.clampPos(this.anchor);
    this.earlier = [];
  }

  /** Moves the active cell to a track's line (e.g. a pre-flight finding's "show"). */
  reveal(id: string): boolean {
    const index = this.lines.indexOf(id);
    if (index >= 0) this.select({ row: index, col: this.active.col });
    return index >= 0;
  }

  /** Whether a cell is in one of the selected ranges. */
  isSelected(pos: CellPos): boolean {
    return this.ranges.some(
      (r) => pos.row >= r.top && pos.row <= r.bottom && pos.col >= r.left && pos.col <= r.right,
    );
  }

  /** Whether a line is in one of the selected ranges. */
  isRowSelected(row: number): boolean {
    return this.ranges.some((r) => row >= r.top && row <= r.bottom);
  }

  /** Selects one cell (dropping other ranges), or extends the current range to it. */
  select(pos: CellPos, extend = false): void {
    const clamped = this.clampPos(pos);
    this.active = clamped;
    if (!extend) {
      this.anchor = clamped;
      this.earlier = [];
    }
  }

  /** Keeps only the active cell selected. */
  collapse(): void {
    this.anchor = { ...this.active };
    this.earlier = [];
  }

  /** Selects every row (all columns). */
  selectAll(): void {
    this.earlier = [];
    this.anchor = { row: 0, col: 0 };
    this.active = { row: Math.max(0, this.lines.length - 1), col: this.visible.length - 1 };
  }

  /** Selects whole rows from `from` to `to` (a row header's click), dropping other ranges. */
  selectRows(from: number, to: number): void {
    this.earlier = [];
    this.#rows(from, to);
  }

  /**
   * A click on a cell, as spreadsheets have it: alone it selects the cell, Shift extends the
   * current range to it, Ctrl/Cmd adds it as a range of its own, Ctrl/Cmd+Shift adds the range
   * from the active cell to it. On the row header (the Status column) the same applies to whole
   * rows.
   */
  click(pos: CellPos, mods: ClickMods = {}): void {
    const add = !!(mods.ctrlKey || mods.metaKey);
    const extend = !!mods.shiftKey;
    const at = this.clampPos(pos);
    const rowHeader = this.visible[at.col]?.id === 'status';
    const from = this.active;
    if (add) this.earlier = [...this.earlier, this.range];
    else if (!extend) this.earlier = [];
    if (rowHeader) {
      this.#rows(extend ? (add ? from.row : this.anchor.row) : at.row, at.row);
    } else if (extend) {
      if (add) this.anchor = { ...from };
      this.active = at;
    } else {
      this.anchor = at;
      this.active = at;
    }
  }

  #rows(from: number, to: number): void {
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
