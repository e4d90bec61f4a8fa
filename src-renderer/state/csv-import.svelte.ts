/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups or
   plain caches; state is replaced as whole values, never mutated in place. */
/**
 * Metadata import and export of the grid, CSV or .xlsx, over the metadata sheet rules in core
 * (shared with `courier deliver --metadata`): the file is read from its bytes (a CSV's encoding
 * and delimiter detected, a workbook's first sheet), its columns map onto the vocabulary's
 * (guessed from the headers, changeable), each row joins one track (core's rule: file, then
 * outer_id, then an ISRC only one track carries), a row that matches several tracks waits for
 * the user to pick one or skip it, every change is shown with what validation says of it, and
 * one undoable command applies them. An empty cell never erases a value.
 */
import type { CsvTable } from '../../src-main/core/model/csv-text.js';
import { formatCsv, readCsv } from '../../src-main/core/model/csv-text.js';
import type { MetadataColumnId } from '../../src-main/core/model/metadata-columns.js';
import {
  type CsvChange as CoreChange,
  type CsvNote,
  type CsvRowProblem,
  guessMapping,
  mergeCsv,
} from '../../src-main/core/model/metadata-csv.js';
import { isWorkbookName, metadataSheetRows } from '../../src-main/core/model/metadata-sheet.js';
import type { DraftTrack } from '../../src-main/core/model/track.js';
import { readWorkbook, workbookBlob } from '../lib/workbook.js';
import type { DraftEdit, LibraryRow, LibraryState } from './library-state.svelte.js';

/** Where a sheet column goes: a column of the vocabulary, or nowhere. */
export type CsvTarget = MetadataColumnId | '';

/** One change the import would make, on the row with this id. */
export type CsvChange = Omit<CoreChange, 'track'> & { id: string };

/** The column a header most likely means. */
export function guessTarget(header: string): CsvTarget {
  return guessMapping([header])[0] ?? '';
}

/** The file types the import reads. */
export const importAccept = '.csv,.tsv,.txt,.xlsx,text/csv';

/**
 * The tracks as CSV: every column of the vocabulary (ids as headers), rows in view order. A BOM
 * first, so Excel opens the UTF-8 as UTF-8 (without it, it reads Windows-1252 and saves mojibake).
 */
export function exportCsv(rows: readonly LibraryRow[]): string {
  return `\ufeff${formatCsv(metadataSheetRows(rows.map((row) => row.draft)))}`;
}

/** The tracks as an .xlsx workbook: the same columns as the CSV, every cell text. */
export function exportXlsx(rows: readonly LibraryRow[]): Promise<Blob> {
  return workbookBlob(metadataSheetRows(rows.map((row) => row.draft)));
}

/** What an import would do with the current mapping and choices. */
export interface CsvPreview {
  changes: CsvChange[];
  /** Rows that match exactly one track (an ambiguous one once a track is picked). */
  matched: number;
  /** Row numbers (the header is 1) that match no track. */
  unmatched: number[];
  /** Rows that match several tracks and wait for a pick: they change nothing. */
  ambiguous: CsvRowProblem[];
  /** Ambiguous rows the user skipped. */
  skipped: CsvRowProblem[];
  /** Cells kept as the track's own value a spreadsheet rewrote (leading zeros dropped). */
  notes: CsvNote[];
  /** Changes whose new value validation rejects (errors). */
  invalid: number;
}

/** One sheet being imported: its mapping, the picks for ambiguous rows, and the preview. */
export class CsvImport {
  readonly headers: string[];
  readonly body: string[][];
  readonly #lines: number[];
  mapping = $state<CsvTarget[]>([]);
  /** For an ambiguous row (by line): the file picked, or null to skip the row. */
  choices = $state.raw<ReadonlyMap<number, string | null>>(new Map());

  /** What the import would do with the current mapping and choices. */
  readonly preview = $derived.by(() => this.#compute());

  /** A CSV's bytes, or a sheet already read; throws a CourierError with one line for bad bytes. */
  constructor(
    private readonly library: LibraryState,
    source: Uint8Array | Pick<CsvTable, 'header' | 'rows'>,
    readonly fileName = 'CSV',
  ) {
    const table = ArrayBuffer.isView(source) ? readCsv(source, { name: fileName }) : source;
    this.headers = table.header;
    this.body = table.rows.map((row) => row.cells);
    this.#lines = table.rows.map((row) => row.line);
    this.mapping = guessMapping(this.headers);
  }

  /** Reads a picked file: an .xlsx workbook (first sheet) or a CSV. */
  static async open(
    library: LibraryState,
    bytes: Uint8Array,
    fileName: string,
  ): Promise<CsvImport> {
    const source = isWorkbookName(fileName) ? await readWorkbook(bytes, fileName) : bytes;
    return new CsvImport(library, source, fileName);
  }

  /** Says which track an ambiguous row is for (one of its candidates), or null to skip it. */
  choose(line: number, file: string | null | undefined): void {
    const next = new Map(this.choices);
    if (file === undefined) next.delete(line);
    else next.set(line, file);
    this.choices = next;
  }

  #drafts = new Map<string, DraftTrack>();

  #compute(): CsvPreview {
    const rows = this.library.rows.filter((row) => row.status === 'ready');
    const csvRows = this.body.map((cells, i) => ({ line: this.#lines[i]!, cells }));
    const merge = mergeCsv(
      rows.map((row) => row.draft),
      { header: this.headers, rows: csvRows },
      this.mapping,
      this.choices,
    );
    this.#drafts = new Map(
      [...new Set(merge.changes.map((c) => c.track))].map((i) => [rows[i]!.id, merge.drafts[i]!]),
    );
    const changes = merge.changes.map(({ track, ...change }) => ({
      id: rows[track]!.id,
      ...change,
    }));
    return {
      changes,
      matched: merge.matched,
      unmatched: merge.unmatched.map((row) => row.line),
      ambiguous: merge.ambiguous,
      skipped: merge.skipped,
      notes: merge.notes,
      invalid: changes.filter((c) => c.findings.some((f) => f.level === 'error')).length,
    };
  }

  /** Applies every previewed change as one undoable command; returns the tracks changed. */
  apply(): number {
    void this.preview;
    const edits: DraftEdit[] = [...this.#drafts].map(([id, draft]) => ({ id, draft }));
    return this.library.applyEdits(`Import ${this.fileName}`, edits);
  }
}
