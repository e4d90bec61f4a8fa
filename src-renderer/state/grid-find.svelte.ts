/**
 * Find and replace over the grid: which cells a search matches (counted live while the user
 * types), what a replace would turn the first of them into, and the edits of the replace itself
 * — one computation, so the count and preview show exactly what applying does.
 */
import { type Column, type ColumnId, columns } from './columns.js';
import type { DraftEdit, LibraryState } from './library-state.svelte.js';

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

/** What a find and replace searches: the grid's view, its selection and its columns. */
export interface FindScope {
  readonly library: LibraryState;
  readonly visible: readonly Column[];
  readonly viewIds: readonly string[];
  readonly selectedIds: readonly string[];
}

/** One cell as a replace would change it. */
export interface ReplacePreview {
  id: string;
  file: string;
  column: string;
  before: string;
  after: string;
}

/** What a search finds: occurrences, the tracks holding them, and the first changes. */
export interface FindResult {
  /** Why nothing can be searched (an empty search, a broken regular expression), else ''. */
  problem: string;
  matches: number;
  /** Cells holding a match, and the tracks holding them. */
  cells: number;
  tracks: number;
  /** How many tracks the search looked at. */
  searched: number;
  preview: ReplacePreview[];
}

/** The search as a global regular expression, or why it cannot be one. */
export function findPattern(options: ReplaceOptions): RegExp | string {
  if (options.find === '') return 'Enter the text to find';
  const flags = options.caseSensitive ? 'g' : 'gi';
  try {
    return options.regex
      ? new RegExp(options.find, flags)
      : new RegExp(options.find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  } catch (error) {
    return `Not a valid regular expression: ${(error as Error).message}`;
  }
}

/** The editable columns a search covers. */
function targetsOf(scope: FindScope, options: ReplaceOptions): Column[] {
  return (options.column === 'all' ? scope.visible : [columns[options.column]]).filter(
    (c) => c.set,
  );
}

/** The ready rows a search covers. */
function rowsOf(scope: FindScope, options: ReplaceOptions) {
  const ids = options.selectionOnly ? scope.selectedIds : scope.viewIds;
  return ids.map((id) => scope.library.row(id)).filter((row) => row?.status === 'ready');
}

/** Counts what a search matches and previews the first `limit` changes a replace would make. */
export function findMatches(scope: FindScope, options: ReplaceOptions, limit = 5): FindResult {
  const pattern = findPattern(options);
  const rows = rowsOf(scope, options);
  const result: FindResult = {
    problem: typeof pattern === 'string' ? pattern : '',
    matches: 0,
    cells: 0,
    tracks: 0,
    searched: rows.length,
    preview: [],
  };
  if (typeof pattern === 'string') return result;
  const targets = targetsOf(scope, options);
  for (const row of rows) {
    let found = 0;
    for (const column of targets) {
      const before = column.get(row!.draft);
      const n = before.match(pattern)?.length ?? 0;
      if (n === 0) continue;
      found += n;
      result.cells++;
      if (result.preview.length < limit) {
        const after = before.replace(pattern, options.replace);
        if (after !== before) {
          result.preview.push({
            id: row!.id,
            file: row!.draft.file,
            column: column.label,
            before,
            after,
          });
        }
      }
    }
    if (found > 0) {
      result.matches += found;
      result.tracks++;
    }
  }
  return result;
}

/** The edits a replace makes, or why it cannot run. */
export function replaceEdits(scope: FindScope, options: ReplaceOptions): DraftEdit[] | string {
  const pattern = findPattern(options);
  if (typeof pattern === 'string') return pattern;
  const targets = targetsOf(scope, options);
  const edits: DraftEdit[] = [];
  for (const row of rowsOf(scope, options)) {
    let draft = row!.draft;
    for (const column of targets) {
      const before = column.get(draft);
      const after = before.replace(pattern, options.replace);
      if (after !== before) draft = column.set!(draft, after, { kind: 'manual' });
    }
    if (draft !== row!.draft) edits.push({ id: row!.id, draft });
  }
  return edits;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 'es'}`;
const tracks = (n: number) => `${n} track${n === 1 ? '' : 's'}`;

/** The find and replace panel's state: what the user typed, the live count and the preview. */
export class FindState {
  column = $state<ColumnId | 'all'>('all');
  find = $state('');
  replace = $state('');
  regex = $state(false);
  caseSensitive = $state(false);
  selectionOnly = $state(false);

  readonly options = $derived<ReplaceOptions>({
    column: this.column,
    find: this.find,
    replace: this.replace,
    regex: this.regex,
    caseSensitive: this.caseSensitive,
    selectionOnly: this.selectionOnly,
  });

  /** Recounted whenever the search, the view or the library changes. */
  readonly result = $derived.by(() => findMatches(this.grid, this.options));

  /** "12 matches in 9 tracks", "No match in 40 tracks", or what is wrong with the search. */
  readonly summary = $derived.by(() => {
    const r = this.result;
    if (this.find === '') return '';
    if (r.problem) return r.problem;
    const where = this.selectionOnly ? `the ${tracks(r.searched)} selected` : tracks(r.searched);
    if (r.matches === 0) return `No match in ${where}`;
    return `${plural(r.matches, 'match')} in ${tracks(r.tracks)}`;
  });

  constructor(private readonly grid: FindScope & { replaceAll(options: ReplaceOptions): number }) {}

  /** Replaces every match, as one undoable command; how many tracks changed. */
  apply(): number {
    return this.grid.replaceAll(this.options);
  }
}
