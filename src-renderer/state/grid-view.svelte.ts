/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups or
   plain caches; state is replaced as whole values, never mutated in place. */
/**
 * What the grid shows of the library: rows filtered (text, level, album, catalog standing),
 * sorted, and optionally grouped by album with a header line per album; a cell's text as shown,
 * copied, sorted and filtered; what the Catalog column says about a row.
 */
import { albumArtistOf, positionProblems } from '../../src-main/core/model/albums.js';
import type { DraftTrack, Finding } from '../../src-main/core/model/track.js';
import { type Column, type ColumnId, columnIds, columns } from './columns.js';
import { GridLayout, type LayoutStorage } from './grid-layout.svelte.js';
import type { LibraryRow, LibraryState } from './library-state.svelte.js';

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

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const levelRank = (findings: readonly Finding[] | undefined) =>
  findings?.some((f) => f.level === 'error') ? 2 : findings && findings.length > 0 ? 1 : 0;

/** The filtered, sorted (and grouped) lines of the grid over one library. */
export class GridView extends GridLayout {
  sort = $state<{ column: ColumnId; direction: 1 | -1 } | null>(null);
  filterText = $state('');
  filterLevel = $state<LevelFilter>('all');
  filterAlbum = $state('');
  filterStanding = $state<StandingFilter>('');
  groupByAlbum = $state(false);

  /** The albums present, for the album filter. */
  readonly albums = $derived.by(() => {
    const seen = new Map<string, string>();
    for (const row of this.library.rows) {
      if (row.status !== 'ready') continue;
      const album = this.library.albumKeyOf(row);
      if (!seen.has(album.key)) seen.set(album.key, album.label);
    }
    // An edit that leaves the albums as they were keeps the list: the filter's thousands of
    // options are not sorted and re-rendered again.
    const last = this.#albums;
    if (seen.size === last.length && last.every(({ key, label }) => seen.get(key) === label)) {
      return last;
    }
    this.#albums = [...seen]
      .map(([key, label]) => ({ key, label }))
      .sort((a, b) => collator.compare(a.label, b.label));
    return this.#albums;
  });

  #albums: Array<{ key: string; label: string }> = [];

  /**
   * The ids of the rows shown, filtered and sorted: the same array while they stay the same (an
   * edit that moves no row), so the lines and the selection that follow are not worked out again.
   */
  readonly viewIds = $derived.by(() => {
    const ids = this.#computeView();
    const last = this.#viewIds;
    if (ids.length === last.length && ids.every((id, i) => id === last[i])) return last;
    this.#viewIds = ids;
    return ids;
  });

  #viewIds: string[] = [];

  /**
   * The lines of the view (what selection coordinates index): the rows, with a header line
   * before each album's first track when grouped by album.
   */
  readonly lines = $derived.by((): readonly GridLine[] =>
    this.groupByAlbum ? this.#withHeaders(this.viewIds) : this.viewIds,
  );

  constructor(
    readonly library: LibraryState,
    storage: LayoutStorage = null,
  ) {
    super(storage);
  }

  #computeView(): string[] {
    const rows = this.library.rows;
    const text = this.filterText.trim().toLowerCase();
    const visible = this.visible;
    // The filters are read once, not once per row: on 100,000 rows that is most of the view's cost.
    const level = this.filterLevel;
    const album = this.filterAlbum;
    const standing = this.filterStanding;
    const filtered = level !== 'all' || album || standing || text;
    let list: LibraryRow[] = !filtered
      ? rows
      : rows.filter((row) => {
          if (level !== 'all') {
            const rank = levelRank(this.library.findings.get(row.id));
            if (level === 'errors' && rank !== 2) return false;
            if (level === 'warnings' && rank !== 1) return false;
          }
          if (album && this.library.albumKeyOf(row).key !== album) return false;
          if (standing && this.standingOf(row).filter !== standing) return false;
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

  /** The findings of a cell (those whose field the column shows). */
  cellFindings(row: LibraryRow, column: Column): readonly Finding[] {
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
