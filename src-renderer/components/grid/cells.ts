/**
 * What each cell of a grid line shows: its text or content, classes, tooltip and ARIA state, as
 * plain values. The grid paints a line's cells from these in one effect (see `paint-cells.ts`)
 * rather than a component and its effects per cell: scrolling a large library then creates a
 * few objects a row, not hundreds.
 */
import type { ColumnId } from '../../state/columns.js';
import {
  type AlbumHeader,
  type GridState,
  isAlbumColumn,
  isAlbumHeader,
} from '../../state/grid-state.svelte.js';
import type { LibraryRow } from '../../state/library-state.svelte.js';
import type { IconName } from '../icons.js';

/** What is inside a cell. */
export type CellContent =
  | { kind: 'text'; text: string }
  /** A file's path: its name first and in full, its folder after it, dimmed. */
  | { kind: 'file'; path: string }
  /** A row's status: an icon and how many findings, read out as `label`. */
  | { kind: 'status'; icon: IconName | null; count: string; label: string }
  /** A placeholder while the row's tags are read. */
  | { kind: 'skeleton' }
  /** An album header's label, as wide as the columns it runs across. */
  | { kind: 'album-label'; text: string; width: number }
  /** An album header's warning icon, read out as `label`. */
  | { kind: 'flag'; label: string };

/** One cell of a line. */
export interface CellView {
  column: ColumnId;
  /** The element id (`cell-<line>-<column>`), which `aria-activedescendant` names. */
  id: string;
  className: string;
  /** The tooltip; '' for none. */
  title: string;
  /** The 1-based column position (`aria-colindex`). */
  colIndex: number;
  /** `<line>:<column>`: where a mouse event on the cell lands in the grid. */
  at: string;
  selected: boolean;
  invalid: boolean;
  readonly: boolean;
  content: CellContent;
  /** While the cell is edited, the editor's accessible name; else ''. */
  editor: string;
}

/** The columns an album header's label runs across, [start, end) of the visible ones. */
export interface LabelSpan {
  start: number;
  end: number;
  width: number;
}

/** Whether an album header shows anything of its own in a column (else its label may cover it). */
function headerShows(id: ColumnId): boolean {
  return id === 'status' || id === 'artists' || id === 'track' || isAlbumColumn(id);
}

/**
 * The columns an album header's label runs across: the File column and the columns after it
 * that the header leaves blank, so the label reads in full while the album-level cells stay in
 * their own columns. Its width comes from the column widths (the same for every header), so no
 * row is measured.
 */
export function labelSpanOf(grid: GridState): LabelSpan {
  const start = grid.visible.findIndex((c) => c.id === 'file');
  let end = start + 1;
  while (end < grid.visible.length && !headerShows(grid.visible[end]!.id)) end++;
  const width = grid.visible.slice(start, end).reduce((sum, c) => sum + grid.widthOf(c), 0);
  return { start, end, width };
}

/** The cells of the line at `index`: a track's or an album header's. */
export function lineCells(grid: GridState, index: number, span: LabelSpan): CellView[] {
  const line = grid.lines[index];
  if (isAlbumHeader(line)) return headerCells(grid, index, line, span);
  const row = line === undefined ? undefined : grid.library.row(line);
  return row ? trackCells(grid, index, row) : [];
}

/** What every cell has: where it is, and whether it is selected, active or edited. */
function cellBase(grid: GridState, index: number, c: number) {
  const editing = grid.editing?.pos.row === index && grid.editing.pos.col === c;
  return {
    id: `cell-${index}-${c}`,
    colIndex: c + 1,
    at: `${index}:${c}`,
    selected: grid.isSelected({ row: index, col: c }),
    active: grid.active.row === index && grid.active.col === c,
    editing,
  };
}

/** Joins class names, leaving out the empty ones. */
function classes(...names: Array<string | false>): string {
  return names.filter(Boolean).join(' ');
}

function trackCells(grid: GridState, index: number, row: LibraryRow): CellView[] {
  return grid.visible.map((column, c) => {
    const { active, editing, ...base } = cellBase(grid, index, c);
    const state = [base.selected && 'selected', active && 'active'] as const;
    if (column.id === 'status') {
      const status = statusOf(grid, row);
      return {
        ...base,
        column: column.id,
        className: classes('cell status', status.level, ...state),
        title: status.text,
        invalid: false,
        readonly: false,
        content: { kind: 'status', icon: status.icon, count: status.count, label: status.text },
        editor: '',
      };
    }
    if (column.id === 'catalog') {
      const standing = grid.standingOf(row);
      return {
        ...base,
        column: column.id,
        className: classes('cell readonly standing', standing.filter, ...state),
        title: standing.title,
        invalid: false,
        readonly: true,
        content: { kind: 'text', text: standing.label },
        editor: '',
      };
    }
    const findings = grid.cellFindings(row, column);
    const level = findings.some((f) => f.level === 'error')
      ? 'error'
      : findings.length > 0
        ? 'warning'
        : '';
    const text = grid.cellText(row, column);
    const content: CellContent =
      row.status === 'reading' && column.id !== 'file'
        ? { kind: 'skeleton' }
        : column.id === 'file'
          ? { kind: 'file', path: text }
          : { kind: 'text', text };
    return {
      ...base,
      column: column.id,
      className: classes('cell', level, ...state, !column.editable && 'readonly'),
      title: findings.map((f) => f.message).join('\n'),
      invalid: level === 'error',
      readonly: !column.editable,
      content,
      editor: editing ? `${column.label} of ${row.draft.file}` : '',
    };
  });
}

/** A row's status: an icon and how many findings, or '…' while its tags are read. */
function statusOf(
  grid: GridState,
  row: LibraryRow,
): { icon: IconName | null; count: string; level: string; text: string } {
  if (row.status === 'reading') {
    return { icon: null, count: '…', level: 'reading', text: 'Reading tags' };
  }
  const findings = grid.library.findings.get(row.id) ?? [];
  const errors = findings.filter((f) => f.level === 'error').length;
  const text = findings.map((f) => `${f.level}: ${f.message}`).join('\n');
  if (errors > 0) return { icon: 'cross', count: String(errors), level: 'error', text };
  if (findings.length > 0) {
    return { icon: 'warning', count: String(findings.length), level: 'warning', text };
  }
  return { icon: 'check', count: '', level: 'ok', text: 'Ready to deliver' };
}

function headerCells(
  grid: GridState,
  index: number,
  header: AlbumHeader,
  span: LabelSpan,
): CellView[] {
  return grid.visible.map((column, c) => {
    const { active, editing, ...base } = cellBase(grid, index, c);
    const editable = isAlbumColumn(column.id);
    const text = headerText(header, column.id);
    const labelled = c >= span.start && c < span.end;
    const flag = column.id === 'status' || column.id === 'track';
    const content: CellContent =
      column.id === 'status' && text
        ? { kind: 'flag', label: problemsText(header) }
        : column.id === 'file'
          ? { kind: 'album-label', text, width: span.width }
          : { kind: 'text', text };
    return {
      ...base,
      column: column.id,
      className: classes(
        'cell',
        base.selected && 'selected',
        active && 'active',
        !editable && 'readonly',
        editable && header.values[column.id] === null && 'mixed',
        flag && text !== '' && 'flag',
        labelled && 'labelled',
        c === span.end - 1 && 'label-end',
      ),
      title: flag ? problemsText(header) : labelled ? headerText(header, 'file') : text,
      invalid: false,
      readonly: !editable,
      content,
      editor: editing ? `${column.label} of album ${header.title || header.label}` : '',
    };
  });
}

/** The position problems in a few characters, for the narrow Track # column. */
function problemsShort(header: AlbumHeader): string {
  const parts: string[] = [];
  if (header.gaps.length > 0) parts.push(`−${header.gaps.slice(0, 3).join(',')}`);
  if (header.duplicates.length > 0) parts.push(`×${header.duplicates.slice(0, 3).join(',')}`);
  return parts.join(' ');
}

function problemsText(header: AlbumHeader): string {
  const parts: string[] = [];
  if (header.gaps.length > 0) parts.push(`no track ${header.gaps.slice(0, 5).join(', ')}`);
  if (header.duplicates.length > 0) {
    parts.push(`track ${header.duplicates.join(', ')} given twice`);
  }
  return parts.join(' · ');
}

/** What an album header shows in a column. */
function headerText(header: AlbumHeader, id: ColumnId): string {
  const n = header.ids.length;
  switch (id) {
    case 'status':
      return header.gaps.length + header.duplicates.length > 0 ? '⚠' : '';
    case 'file': {
      const artist = header.artist ? ` — ${header.artist}` : '';
      const problems = problemsText(header);
      return `${header.title || header.label}${artist} · ${n} track${n === 1 ? '' : 's'}${problems && ` · ${problems}`}`;
    }
    case 'artists':
      return header.artist;
    case 'track':
      return problemsShort(header);
    default:
      if (!isAlbumColumn(id)) return '';
      return header.values[id] ?? '(mixed)';
  }
}

/** An album header row's accessible name. */
export function headerLabel(header: AlbumHeader): string {
  const n = header.ids.length;
  const parts = [
    `Album ${header.title || header.label}`,
    header.artist && `by ${header.artist}`,
    header.upc && `UPC ${header.upc}`,
    `${n} track${n === 1 ? '' : 's'}`,
    problemsText(header),
  ];
  return parts.filter(Boolean).join(', ');
}
