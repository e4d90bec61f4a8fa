/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups or
   plain caches; state is replaced as whole values, never mutated in place. */
/**
 * The grid's state over the library: visible columns (order, widths), sorting and filters, the
 * selection (an active cell and a rectangular range, in view coordinates), inline editing and
 * the spreadsheet operations on the range: keyboard, copy/paste as TSV, fill down, clear,
 * find and replace. Grouped by album, the view has a header line per album whose album-level
 * cells edit the whole album. Every change goes through the library as one undoable command.
 */
import { albumArtistOf, albumOf, positionProblems } from '../../src-main/core/model/albums.js';
import { applyArtistSplits } from '../../src-main/core/model/artists.js';
import { formatTsv, parseTsv } from '../../src-main/core/model/csv-text.js';
import type { ArtistSplitFix, DraftTrack, Finding } from '../../src-main/core/model/track.js';
import { type Column, type ColumnId, columnIds, columns, defaultHiddenColumns } from './columns.js';
import type { DraftEdit, LibraryRow, LibraryState } from './library-state.svelte.js';

/** A cell position in the current view: row index in `lines`, column index in `visible`. */
export interface CellPos {
  row: number;
  col: number;
}

/** The header line of one album in a view grouped by album. */
export interface AlbumHeader {
  kind: 'album';
  key: string;
  label: string;
  title: string;
  artist: string;
  upc: string;
  /** The album's tracks in the view, in view order. */
  ids: string[];
  /** Positions no track has, and positions given to several tracks ("2-5": disk 2, track 5). */
  gaps: string[];
  duplicates: string[];
  /** Album-level columns' common text across the tracks; null where they differ. */
  values: Partial<Record<ColumnId, string | null>>;
}

/** One line of the view: a track (its row id) or an album header. */
export type GridLine = string | AlbumHeader;

/** Whether a line is an album header. */
export function isAlbumHeader(line: GridLine | undefined): line is AlbumHeader {
  return typeof line === 'object';
}

/** Album-level columns (the same for every track of an album): what a header edits. */
const albumColumns = columnIds.filter((id) => columns[id].album && columns[id].set);

/** Whether an album header's cell in this column can be edited (for the whole album). */
export function isAlbumColumn(id: ColumnId): boolean {
  return albumColumns.includes(id);
}

/** Which rows the level filter keeps. */
export type LevelFilter = 'all' | 'errors' | 'warnings';

/** Which rows the catalog filter keeps ('' all): changed covers new audio and new metadata. */
export type StandingFilter = '' | 'new' | 'changed' | 'unchanged' | 'excluded' | 'skipped';

/** What the Catalog column says about a row. */
export interface RowStanding {
  filter: Exclude<StandingFilter, ''> | '';
  label: string;
  title: string;
}

/** The keys of a keyboard event the grid reacts to. */
export interface GridKey {
  key: string;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

/** Options of a find and replace. */
export interface ReplaceOptions {
  column: ColumnId | 'all';
  find: string;
  replace: string;
  regex?: boolean;
  caseSensitive?: boolean;
  /** Only the selected rows (else every row the view shows). */
  selectionOnly?: boolean;
}

const layoutKey = 'courier.grid.columns';
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const levelRank = (findings: Finding[] | undefined) =>
  findings?.some((f) => f.level === 'error') ? 2 : findings && findings.length > 0 ? 1 : 0;

/** The grid over one library. */
export class GridState {
  order = $state<ColumnId[]>([...columnIds]);
  hidden = $state<ColumnId[]>([...defaultHiddenColumns]);
  widths = $state<Partial<Record<ColumnId, number>>>({});
  sort = $state<{ column: ColumnId; direction: 1 | -1 } | null>(null);
  filterText = $state('');
  filterLevel = $state<LevelFilter>('all');
  filterAlbum = $state('');
  filterStanding = $state<StandingFilter>('');
  groupByAlbum = $state(false);
  /** Album-level columns edited on one track apply to every track of its album. */
  albumWide = $state(true);
  active = $state<CellPos>({ row: 0, col: 1 });
  anchor = $state<CellPos>({ row: 0, col: 1 });
  editing = $state<{ pos: CellPos; text: string } | null>(null);
  /** Last message of a grid operation ("Pasted 12 cells", why a paste was refused). */
  notice = $state('');

  readonly visible = $derived(
    this.order.filter((id) => !this.hidden.includes(id)).map((id) => columns[id]),
  );

  /** The albums present, for the album filter. */
  readonly albums = $derived.by(() => {
    const seen = new Map<string, string>();
    for (const row of this.library.rows) {
      if (row.status !== 'ready') continue;
      const album = this.library.albumKeyOf(row);
      if (!seen.has(album.key)) seen.set(album.key, album.label);
    }
    return [...seen]
      .map(([key, label]) => ({ key, label }))
      .sort((a, b) => collator.compare(a.label, b.label));
  });

  /** The ids of the rows shown, filtered and sorted. */
  readonly viewIds = $derived.by(() => this.#computeView());

  /**
   * The lines of the view (what selection coordinates index): the rows, with a header line
   * before each album's first track when grouped by album.
   */
  readonly lines = $derived.by((): readonly GridLine[] =>
    this.groupByAlbum ? this.#withHeaders(this.viewIds) : this.viewIds,
  );

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

  /** Leaves the selected tracks (or albums) out of deliveries, or takes them back in. */
  excludeSelection(excluded: boolean): number {
    const n = this.library.setExcluded(this.selectedTracks, excluded);
    this.notice = `${excluded ? 'Excluded' : 'Included'} ${n} track${n === 1 ? '' : 's'}`;
    return n;
  }

  /** Takes the selected tracks out of the library (undoable). */
  removeSelection(): number {
    const n = this.library.remove(this.selectedTracks);
    this.notice = `Removed ${n} track${n === 1 ? '' : 's'} (Undo brings them back)`;
    return n;
  }

  constructor(
    readonly library: LibraryState,
    private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null = null,
  ) {
    this.#restoreLayout();
  }

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
      const added = columnIds.filter((id) => !order.includes(id));
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
    this.order = [...columnIds];
    this.hidden = [...defaultHiddenColumns];
    this.widths = {};
    this.#saveLayout();
  }

  #computeView(): string[] {
    const { rows, findings } = this.library;
    const text = this.filterText.trim().toLowerCase();
    const visible = this.visible;
    let list: LibraryRow[] = rows.filter((row) => {
      if (this.filterLevel !== 'all') {
        const rank = levelRank(findings.get(row.id));
        if (this.filterLevel === 'errors' && rank !== 2) return false;
        if (this.filterLevel === 'warnings' && rank !== 1) return false;
      }
      if (this.filterAlbum && this.library.albumKeyOf(row).key !== this.filterAlbum) return false;
      if (this.filterStanding && this.standingOf(row).filter !== this.filterStanding) return false;
      const matches = (c: Column) =>
        c.id !== 'status' && this.cellText(row, c).toLowerCase().includes(text);
      if (text && !visible.some(matches)) {
        return false;
      }
      return true;
    });
    const sort = this.sort;
    if (this.groupByAlbum) {
      const keyed = list.map((row) => ({
        row,
        album: this.library.albumKeyOf(row),
        disk: row.draft.album?.diskNumber?.value ?? '1',
        track: row.draft.album?.trackPosition?.value ?? '',
        sortKey: sort ? this.#sortText(row, sort.column) : '',
      }));
      keyed.sort(
        (a, b) =>
          collator.compare(a.album.label, b.album.label) ||
          (a.album.key < b.album.key ? -1 : a.album.key > b.album.key ? 1 : 0) ||
          (sort ? collator.compare(a.sortKey, b.sortKey) * sort.direction : 0) ||
          collator.compare(a.disk, b.disk) ||
          collator.compare(a.track, b.track) ||
          collator.compare(a.row.draft.file, b.row.draft.file),
      );
      list = keyed.map((k) => k.row);
    } else if (sort) {
      const keyed = list.map((row) => ({ row, key: this.#sortText(row, sort.column) }));
      keyed.sort((a, b) => collator.compare(a.key, b.key) * sort.direction);
      list = keyed.map((k) => k.row);
    }
    return list.map((row) => row.id);
  }

  /** The grouped view's lines: each album's header, then its tracks (already contiguous). */
  #withHeaders(ids: readonly string[]): GridLine[] {
    const lines: GridLine[] = [];
    let header: AlbumHeader | undefined;
    let drafts: DraftTrack[] = [];
    const close = () => {
      if (!header) return;
      Object.assign(header, positionProblems(drafts));
      for (const id of albumColumns) header.values[id] = commonText(drafts, columns[id]);
    };
    for (const id of ids) {
      const row = this.library.row(id);
      if (!row) continue;
      const album = this.library.albumKeyOf(row);
      if (header?.key !== album.key) {
        close();
        header = {
          kind: 'album',
          key: album.key,
          label: album.label,
          title: row.draft.album?.title?.value ?? '',
          artist: albumArtistOf(row.draft),
          upc: row.draft.album?.upc?.value ?? '',
          ids: [],
          gaps: [],
          duplicates: [],
          values: {},
        };
        drafts = [];
        lines.push(header);
      }
      header.ids.push(id);
      drafts.push(row.draft);
      lines.push(id);
    }
    close();
    return lines;
  }

  #sortText(row: LibraryRow, column: ColumnId): string {
    if (column === 'status') return String(levelRank(this.library.findings.get(row.id)));
    return this.cellText(row, columns[column]);
  }

  /** A cell's text as shown, copied, sorted and filtered. */
  cellText(row: LibraryRow, column: Column): string {
    if (column.id === 'status') return this.#statusText(row);
    if (column.id === 'catalog') return this.standingOf(row).label;
    if (column.ofAudio) return column.ofAudio(row.audio);
    return column.get(row.draft);
  }

  /**
   * Where a row stands: excluded by the user, else as the last Check found it against the
   * catalog (new; new audio or changed fields, named; delivered and when; skipped and why).
   */
  standingOf(row: LibraryRow): RowStanding {
    if (row.excluded) {
      return { filter: 'excluded', label: 'Excluded', title: 'Left out of deliveries' };
    }
    const standing = this.library.standing;
    const s = standing?.byId.get(row.id);
    if (!s) return { filter: '', label: '', title: '' };
    const when = s.delivered ? ` (delivered ${s.delivered.at.slice(0, 10)})` : '';
    const where = `in ${standing!.catalog}`;
    switch (s.state) {
      case 'new':
        return { filter: 'new', label: 'New', title: `Not ${where} yet` };
      case 'audio':
        return {
          filter: 'changed',
          label: 'New audio',
          title: `The audio differs from the one ${where}${when}${s.fields.length ? `; fields: ${s.fields.join(', ')}` : ''}`,
        };
      case 'metadata':
        return {
          filter: 'changed',
          label: `Changed: ${s.fields.join(', ')}`,
          title: `Differs from what is ${where}${when}: ${s.fields.join(', ')}${s.removed.length ? `; removes ${s.removed.join(', ')}` : ''}`,
        };
      case 'unchanged':
        return {
          filter: 'unchanged',
          label: `Delivered ${s.delivered?.at.slice(0, 10) ?? ''}`.trim(),
          title: `${where} as it is here (delivery ${s.delivered?.delivery ?? '?'})`,
        };
      case 'skipped':
        return { filter: 'skipped', label: 'Skipped', title: `Skipped: ${s.reason ?? 'errors'}` };
      case 'excluded':
        return { filter: 'excluded', label: 'Excluded', title: 'Left out of this delivery' };
    }
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
    this.#clamp();
    this.#saveLayout();
  }

  /** Sorts by a column: ascending, descending, then unsorted. */
  toggleSort(id: ColumnId): void {
    const sort = this.sort;
    if (!sort || sort.column !== id) this.sort = { column: id, direction: 1 };
    else if (sort.direction === 1) this.sort = { column: id, direction: -1 };
    else this.sort = null;
  }

  /** The track shown at a line index (undefined for an album header). */
  rowAt(index: number): LibraryRow | undefined {
    const line = this.lines[index];
    return typeof line === 'string' ? this.library.row(line) : undefined;
  }

  /** The album header at a line index, if that line is one. */
  headerAt(index: number): AlbumHeader | undefined {
    const line = this.lines[index];
    return isAlbumHeader(line) ? line : undefined;
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
    const clamped = this.#clampPos(pos);
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
    this.anchor = this.#clampPos({ row: from, col: 0 });
    this.active = this.#clampPos({ row: to, col: this.visible.length - 1 });
  }

  #clampPos(pos: CellPos): CellPos {
    return {
      row: Math.max(0, Math.min(this.lines.length - 1, pos.row)),
      col: Math.max(0, Math.min(this.visible.length - 1, pos.col)),
    };
  }

  #clamp(): void {
    this.active = this.#clampPos(this.active);
    this.anchor = this.#clampPos(this.anchor);
  }

  /** Starts editing the active cell, optionally replacing its text with what was typed. */
  startEdit(initial?: string): boolean {
    const column = this.visible[this.active.col];
    const header = this.headerAt(this.active.row);
    if (header && column) {
      if (!albumColumns.includes(column.id)) {
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
    this.#set(this.#albumWide(column.album, ids), column, editing.text);
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
    if (!albumColumns.includes(id)) return 0;
    const column = columns[id];
    return this.#set(header.ids, column, text, `Set ${column.label} of ${header.label}`);
  }

  /**
   * Applies `change` to every selected track as one command (the inspector's edits of nested
   * fields); album-level changes reach whole albums when album-wide editing is on.
   */
  editSelection(label: string, change: (draft: DraftTrack) => DraftTrack, album = false): number {
    const ids = album ? this.#albumWide(true, this.selectedIds) : this.selectedIds;
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
  #albumWide(album: boolean | undefined, ids: readonly string[]): string[] {
    if (!album || !this.albumWide) return [...ids];
    const keys = new Set(
      ids
        .map((id) => this.library.row(id))
        .filter((r) => r)
        .map((r) => albumOf(r!.draft).key),
    );
    // Tracks with no album of their own (grouped by folder) are not expanded.
    const expandable = [...keys].filter((k) => !k.startsWith('folder:'));
    if (expandable.length === 0) return [...ids];
    const wanted = new Set(expandable);
    const extra = this.library.rows
      .filter((row) => row.status === 'ready' && wanted.has(albumOf(row.draft).key))
      .map((row) => row.id);
    return [...new Set([...ids, ...extra])];
  }

  #set(ids: readonly string[], column: Column, text: string, label?: string): number {
    const n = this.library.setCell(ids, column, text, label);
    this.notice = n > 1 ? `${label ?? `Edit ${column.label}`}: ${n} tracks` : '';
    return n;
  }

  /** Sets one column on the selected rows (the inspector's multi-row edit). */
  setOnSelection(id: ColumnId, text: string): number {
    const column = columns[id];
    return this.#set(this.#albumWide(column.album, this.selectedIds), column, text);
  }

  /** The artist splits validation offers on a track: those of one finding (by its text) or all. */
  #splitsOf(id: string, finding?: Finding): ArtistSplitFix[] {
    const fixes: ArtistSplitFix[] = [];
    for (const f of this.library.findings.get(id) ?? []) {
      if (f.fix?.kind !== 'split-artist') continue;
      if (finding && (f.field !== finding.field || f.message !== finding.message)) continue;
      fixes.push(f.fix);
    }
    return fixes;
  }

  /** How many selected tracks validation offers to split artists of (the inspector's "Split all"). */
  splittableInSelection(): number {
    return this.selectedIds.filter((id) => this.#splitsOf(id).length > 0).length;
  }

  /**
   * Splits artists as validation offers, on every selected track its own splits, as one command
   * ("Split artists"): those of one finding (every selected track that has it) or all of them.
   */
  splitArtists(finding?: Finding): number {
    const edits: DraftEdit[] = [];
    for (const id of this.selectedIds) {
      const row = this.library.row(id);
      const fixes = this.#splitsOf(id, finding);
      if (row?.status === 'ready' && fixes.length > 0) {
        edits.push({ id, draft: applyArtistSplits(row.draft, fixes) });
      }
    }
    const label = 'Split artists';
    const n = this.library.applyEdits(label, edits);
    this.notice = n > 1 ? `${label}: ${n} tracks` : '';
    return n;
  }

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
        return this.#run(() => (this.anchor = { ...this.active }));
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

  /** The editable columns of the range, with their view column index. */
  #rangeColumns(): Array<{ col: number; column: Column }> {
    const result: Array<{ col: number; column: Column }> = [];
    for (let c = this.range.left; c <= this.range.right; c++) {
      const column = this.visible[c];
      if (column) result.push({ col: c, column });
    }
    return result;
  }

  /** The range as TSV (what Ctrl+C puts on the clipboard). */
  copyText(): string {
    const cols = this.#rangeColumns();
    const lines: string[][] = [];
    for (let r = this.range.top; r <= this.range.bottom; r++) {
      const row = this.rowAt(r);
      if (!row) continue;
      lines.push(cols.map(({ column }) => this.cellText(row, column)));
    }
    return formatTsv(lines);
  }

  #statusText(row: LibraryRow): string {
    const rank = levelRank(this.library.findings.get(row.id));
    return rank === 2
      ? 'error'
      : rank === 1
        ? 'warning'
        : row.status === 'ready'
          ? 'ok'
          : row.status;
  }

  /**
   * Pastes TSV at the range: one value fills the whole range; a block is written from the
   * range's top-left cell (clipped to the view). Read-only columns are skipped.
   */
  paste(text: string): number {
    const block = parseTsv(text);
    const single = block.length === 1 && block[0]!.length === 1;
    const edits = new Map<string, DraftEdit['draft']>();
    const write = (r: number, c: number, value: string) => {
      const column = this.visible[c];
      const row = this.rowAt(r);
      if (!column?.set || !row || row.status !== 'ready') return;
      const draft = edits.get(row.id) ?? row.draft;
      if (column.get(draft) === value) return;
      edits.set(row.id, column.set(draft, value, { kind: 'manual' }));
    };
    const { top, bottom, left, right } = this.range;
    if (single) {
      for (let r = top; r <= bottom; r++)
        for (let c = left; c <= right; c++) write(r, c, block[0]![0]!);
    } else {
      block.forEach((line, i) => line.forEach((value, j) => write(top + i, left + j, value)));
      this.anchor = { row: top, col: left };
      this.active = this.#clampPos({
        row: top + block.length - 1,
        col: left + Math.max(...block.map((l) => l.length)) - 1,
      });
    }
    const n = this.library.applyEdits(
      'Paste',
      [...edits].map(([id, draft]) => ({ id, draft })),
    );
    this.notice = n > 0 ? `Pasted into ${n} track${n === 1 ? '' : 's'}` : 'Nothing to paste here';
    return n;
  }

  /** Copies the top row of the range into every row below it, column by column. */
  fillDown(): number {
    const { top, bottom } = this.range;
    let first = top;
    while (first < bottom && !this.rowAt(first)) first++;
    const source = this.rowAt(first);
    if (!source || bottom <= first) return 0;
    const edits = new Map<string, DraftEdit['draft']>();
    for (const { column } of this.#rangeColumns()) {
      if (!column.set) continue;
      const value = column.get(source.draft);
      for (let r = first + 1; r <= bottom; r++) {
        const row = this.rowAt(r);
        if (!row || row.status !== 'ready') continue;
        const draft = edits.get(row.id) ?? row.draft;
        if (column.get(draft) !== value)
          edits.set(row.id, column.set(draft, value, { kind: 'manual' }));
      }
    }
    const n = this.library.applyEdits(
      'Fill down',
      [...edits].map(([id, draft]) => ({ id, draft })),
    );
    this.notice = `Filled down ${n} track${n === 1 ? '' : 's'}`;
    return n;
  }

  /** Empties the editable cells of the range. */
  clearRange(): number {
    const edits = new Map<string, DraftEdit['draft']>();
    for (let r = this.range.top; r <= this.range.bottom; r++) {
      const row = this.rowAt(r);
      if (!row || row.status !== 'ready') continue;
      for (const { column } of this.#rangeColumns()) {
        if (!column.set) continue;
        const draft = edits.get(row.id) ?? row.draft;
        if (column.get(draft) !== '') edits.set(row.id, column.set(draft, '', { kind: 'manual' }));
      }
    }
    return this.library.applyEdits(
      'Clear cells',
      [...edits].map(([id, draft]) => ({ id, draft })),
    );
  }

  /** Find and replace in one column (or every editable one); returns the tracks changed. */
  replaceAll(options: ReplaceOptions): number {
    let pattern: RegExp;
    try {
      pattern = options.regex
        ? new RegExp(options.find, options.caseSensitive ? 'g' : 'gi')
        : new RegExp(
            options.find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
            options.caseSensitive ? 'g' : 'gi',
          );
    } catch (error) {
      this.notice = `Not a valid regular expression: ${(error as Error).message}`;
      return 0;
    }
    if (options.find === '') {
      this.notice = 'Enter the text to find';
      return 0;
    }
    const targets = (options.column === 'all' ? this.visible : [columns[options.column]]).filter(
      (c) => c.set,
    );
    const ids = options.selectionOnly ? this.selectedIds : this.viewIds;
    const edits: DraftEdit[] = [];
    for (const id of ids) {
      const row = this.library.row(id);
      if (!row || row.status !== 'ready') continue;
      let draft = row.draft;
      for (const column of targets) {
        const before = column.get(draft);
        const after = before.replace(pattern, options.replace);
        if (after !== before) draft = column.set!(draft, after, { kind: 'manual' });
      }
      if (draft !== row.draft) edits.push({ id, draft });
    }
    const n = this.library.applyEdits('Replace', edits);
    this.notice = `Replaced in ${n} track${n === 1 ? '' : 's'}`;
    return n;
  }

  /** The findings of a cell (those whose field the column shows). */
  cellFindings(row: LibraryRow, column: Column): Finding[] {
    const all = this.library.findings.get(row.id);
    if (!all || all.length === 0) return [];
    if (column.id === 'status') return all;
    if (column.id === 'catalog') return [];
    return all.filter((f) => f.field !== undefined && column.fields.includes(f.field));
  }
}

/** A column's text when every draft has the same, else null (a header shows "mixed"). */
function commonText(drafts: readonly DraftTrack[], column: Column): string | null {
  const first = drafts[0] ? column.get(drafts[0]) : '';
  for (const draft of drafts) if (column.get(draft) !== first) return null;
  return first;
}
