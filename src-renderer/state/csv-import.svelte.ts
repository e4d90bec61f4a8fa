/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups or
   plain caches; state is replaced as whole values, never mutated in place. */
/**
 * CSV import and export of the grid, over the metadata CSV rules in core (shared with
 * `courier deliver --metadata`): the file is read from its bytes (encoding and delimiter
 * detected), CSV columns map onto grid columns (guessed from the headers, changeable), each row
 * matches one track (file, then outer_id, then an ISRC only one track carries), and every change
 * is previewed before one undoable command applies them. An empty cell never erases a value.
 */
import { formatCsv, readCsv } from '../../src-main/core/model/csv-text.js';
import { metadataCells } from '../../src-main/core/model/metadata-columns.js';
import {
  type CsvMapping,
  type CsvRowProblem,
  guessMapping,
  mergeCsv,
} from '../../src-main/core/model/metadata-csv.js';
import type { DraftTrack } from '../../src-main/core/model/track.js';
import { type Column, type ColumnId, isRowColumn, type RowColumnId } from './columns.js';
import type { DraftEdit, LibraryRow, LibraryState } from './library-state.svelte.js';

/** Where a CSV column goes: a grid column, or nowhere. */
export type CsvTarget = Exclude<ColumnId, RowColumnId> | '';

/** One change the import would make. */
export interface CsvChange {
  id: string;
  file: string;
  column: Exclude<ColumnId, RowColumnId>;
  header: string;
  before: string;
  after: string;
}

/** The grid column a CSV header most likely means. */
export function guessTarget(header: string): CsvTarget {
  return guessMapping([header])[0] ?? '';
}

/** The grid's rows (view order, visible columns but status) as CSV text with column ids as headers. */
export function exportCsv(rows: readonly LibraryRow[], visible: readonly Column[]): string {
  const ids = visible.map((c) => c.id).filter((id) => !isRowColumn(id));
  // The cells' full text (lyrics in full, not "Yes"), as `courier deliver --metadata` reads it.
  return formatCsv([ids, ...rows.map((row) => ids.map((id) => metadataCells[id].get(row.draft)))]);
}

/** What an import would do with the current mapping. */
export interface CsvPreview {
  changes: CsvChange[];
  /** Rows that match exactly one track. */
  matched: number;
  /** Row numbers (the header is 1) that match no track. */
  unmatched: number[];
  /** Rows that would match several tracks: they change nothing. */
  ambiguous: CsvRowProblem[];
}

/** One CSV file being imported: its mapping and the preview of what it would change. */
export class CsvImport {
  readonly headers: string[];
  readonly body: string[][];
  readonly #lines: number[];
  mapping = $state<CsvTarget[]>([]);

  /** What the import would do with the current mapping. */
  readonly preview = $derived.by(() => this.#compute());

  /** Reads the file's bytes; throws a CourierError with one line when they are not a text CSV. */
  constructor(
    private readonly library: LibraryState,
    bytes: Uint8Array,
    readonly fileName = 'CSV',
  ) {
    const table = readCsv(bytes, { name: fileName });
    this.headers = table.header;
    this.body = table.rows.map((row) => row.cells);
    this.#lines = table.rows.map((row) => row.line);
    this.mapping = guessMapping(this.headers);
  }

  #compute(): CsvPreview {
    const rows = this.library.rows.filter((row) => row.status === 'ready');
    const csvRows = this.body.map((cells, i) => ({ line: this.#lines[i]!, cells }));
    const merge = mergeCsv(
      rows.map((row) => row.draft),
      { header: this.headers, rows: csvRows },
      this.mapping as CsvMapping,
    );
    this.#drafts = new Map(
      [...new Set(merge.changes.map((c) => c.track))].map((i) => [rows[i]!.id, merge.drafts[i]!]),
    );
    return {
      changes: merge.changes.map(({ track, ...change }) => ({ id: rows[track]!.id, ...change })),
      matched: merge.matched,
      unmatched: merge.unmatched.map((row) => row.line),
      ambiguous: merge.ambiguous,
    };
  }

  #drafts = new Map<string, DraftTrack>();

  /** Applies every previewed change as one undoable command; returns the tracks changed. */
  apply(): number {
    void this.preview;
    const edits: DraftEdit[] = [...this.#drafts].map(([id, draft]) => ({ id, draft }));
    return this.library.applyEdits(`Import ${this.fileName}`, edits);
  }
}
