/**
 * The grid's columns as the user arranged them: order, visibility and widths, kept in local
 * storage as a preference. The lowest layer of the grid's state (see grid-state.svelte.ts).
 */
import {
  type Column,
  type ColumnId,
  columnIds,
  columns,
  defaultColumnOrder,
  defaultHiddenColumns,
} from './columns.js';

const layoutKey = 'courier.grid.columns';

/** Where the layout is kept (local storage in the app, nothing in most tests). */
export type LayoutStorage = Pick<Storage, 'getItem' | 'setItem'> | null;

/** Visible columns, their order and widths. */
export class GridLayout {
  order = $state<ColumnId[]>([...defaultColumnOrder]);
  hidden = $state<ColumnId[]>([...defaultHiddenColumns]);
  widths = $state<Partial<Record<ColumnId, number>>>({});

  readonly visible = $derived(
    this.order.filter((id) => !this.hidden.includes(id)).map((id) => columns[id]),
  );

  constructor(private readonly storage: LayoutStorage = null) {
    this.#restoreLayout();
  }

  /** Called when the visible columns change, so the layers above can keep positions valid. */
  protected columnsChanged(): void {}

  /** Column order, visibility and widths are a preference: kept in local storage. */
  #restoreLayout(): void {
    try {
      const saved = JSON.parse(this.storage?.getItem(layoutKey) ?? 'null') as {
        order?: ColumnId[];
        hidden?: ColumnId[];
        widths?: Partial<Record<ColumnId, number>>;
      } | null;
      if (!saved) return;
      const known = (ids: unknown) =>
        Array.isArray(ids) ? ids.filter((id): id is ColumnId => columnIds.includes(id)) : [];
      const order = known(saved.order);
      const added = defaultColumnOrder.filter((id) => !order.includes(id));
      this.order = [...order, ...added];
      // Columns new since the layout was saved start as the default layout has them.
      this.hidden = [
        ...known(saved.hidden).filter((id) => id !== 'file'),
        ...added.filter((id) => defaultHiddenColumns.includes(id)),
      ];
      this.widths = typeof saved.widths === 'object' && saved.widths ? saved.widths : {};
    } catch {
      // A broken preference is forgotten.
    }
  }

  #saveLayout(): void {
    this.storage?.setItem(
      layoutKey,
      JSON.stringify({ order: this.order, hidden: this.hidden, widths: this.widths }),
    );
  }

  /** Back to the default columns. */
  resetColumns(): void {
    this.order = [...defaultColumnOrder];
    this.hidden = [...defaultHiddenColumns];
    this.widths = {};
    this.columnsChanged();
    this.#saveLayout();
  }

  /** Width of a column in px. */
  widthOf(column: Column): number {
    return this.widths[column.id] ?? column.width;
  }

  /** Sets a column's width (clamped). */
  resize(id: ColumnId, width: number): void {
    this.widths = { ...this.widths, [id]: Math.max(40, Math.min(800, Math.round(width))) };
    this.#saveLayout();
  }

  /** Moves a column one place left (-1) or right (+1) among all columns. */
  moveColumn(id: ColumnId, delta: -1 | 1): void {
    const order = [...this.order];
    const i = order.indexOf(id);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= order.length) return;
    [order[i], order[j]] = [order[j]!, order[i]!];
    this.order = order;
    this.#saveLayout();
  }

  /** Moves a column before another (header drag and drop). */
  moveColumnBefore(id: ColumnId, before: ColumnId): void {
    if (id === before) return;
    const order = this.order.filter((c) => c !== id);
    order.splice(order.indexOf(before), 0, id);
    this.order = order;
    this.#saveLayout();
  }

  /** Shows or hides a column (file stays visible). */
  toggleColumn(id: ColumnId): void {
    if (id === 'file') return;
    this.hidden = this.hidden.includes(id)
      ? this.hidden.filter((c) => c !== id)
      : [...this.hidden, id];
    this.columnsChanged();
    this.#saveLayout();
  }
}
