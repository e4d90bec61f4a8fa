/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups or
   plain caches; state is replaced as whole values, never mutated in place. */
/**
 * CSV import and export of the grid. Import maps CSV columns onto grid columns (guessed from the
 * headers, changeable), matches each CSV row to tracks by ISRC, then outer_id, then relative
 * path, and previews every change before one undoable command applies them. Identifiers stay
 * text; an empty cell never erases a value.
 */
import { normalizeIsrc } from '../../src-main/core/model/isrc.js';
import type { DraftTrack } from '../../src-main/core/model/track.js';
import { formatCsv, parseDelimited } from '../lib/csv.js';
import { type Column, type ColumnId, columnIds, columns, setLyrics } from './columns.js';
import type { DraftEdit, LibraryRow, LibraryState } from './library-state.svelte.js';

/** Where a CSV column goes: a grid column, or nowhere. */
export type CsvTarget = ColumnId | '';

/** One change the import would make. */
export interface CsvChange {
  id: string;
  file: string;
  column: ColumnId;
  header: string;
  before: string;
  after: string;
}

const aliases: Partial<Record<ColumnId, string[]>> = {
  file: ['file', 'path', 'relativepath', 'filename', 'primarymedia'],
  outer_id: ['outerid', 'id', 'trackid'],
  title: ['title', 'tracktitle', 'track title', 'name'],
  artists: ['artist', 'artists', 'trackartist', 'mainartist'],
  album: ['album', 'albumtitle', 'release'],
  upc: ['upc', 'ean', 'barcode', 'gtin', 'upcean'],
  isrc: ['isrc'],
  release_date: ['releasedate', 'date', 'year'],
  track: ['track', 'tracknumber', 'trackno', 'trackposition', 'position'],
  disk: ['disk', 'disc', 'disknumber', 'discnumber', 'diskno', 'discno'],
  album_type: ['albumtype', 'type', 'releasetype'],
  customer_tags: ['customertags', 'tags', 'genre', 'genres'],
  lyrics: ['lyrics'],
};

const squash = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The grid column a CSV header most likely means. */
export function guessTarget(header: string): CsvTarget {
  const key = squash(header);
  for (const id of columnIds) {
    if (squash(id) === key || squash(columns[id].label) === key) return id === 'status' ? '' : id;
    if (aliases[id]?.some((alias) => squash(alias) === key)) return id;
  }
  return '';
}

/** The text a column exports (lyrics in full, not "Yes"). */
function exportText(column: Column, draft: DraftTrack): string {
  return column.id === 'lyrics' ? (draft.lyrics?.value ?? '') : column.get(draft);
}

function write(column: ColumnId, draft: DraftTrack, value: string, header: string): DraftTrack {
  const source = { kind: 'csv' as const, column: header };
  if (column === 'lyrics') return setLyrics(draft, value, source);
  return columns[column].set ? columns[column].set(draft, value, source) : draft;
}

/** The grid's rows (view order, visible columns but status) as CSV text with column ids as headers. */
export function exportCsv(rows: readonly LibraryRow[], visible: readonly Column[]): string {
  const cols = visible.filter((c) => c.id !== 'status');
  return formatCsv([
    cols.map((c) => c.id),
    ...rows.map((row) => cols.map((c) => exportText(c, row.draft))),
  ]);
}

/** One CSV file being imported: its mapping and the preview of what it would change. */
export class CsvImport {
  readonly headers: string[];
  readonly body: string[][];
  mapping = $state<CsvTarget[]>([]);

  /** What the import would do with the current mapping. */
  readonly preview = $derived.by(() => this.#compute());

  constructor(
    private readonly library: LibraryState,
    text: string,
    readonly fileName = 'CSV',
  ) {
    const rows = parseDelimited(text).filter((row) => row.some((cell) => cell.trim() !== ''));
    this.headers = rows[0] ?? [];
    this.body = rows.slice(1);
    this.mapping = this.headers.map(guessTarget);
  }

  #compute(): { changes: CsvChange[]; matched: number; unmatched: number[] } {
    const rows = this.library.rows.filter((row) => row.status === 'ready');
    const byIsrc = new Map<string, LibraryRow[]>();
    const byOuterId = new Map<string, LibraryRow[]>();
    const byFile = new Map<string, LibraryRow[]>();
    const push = (map: Map<string, LibraryRow[]>, key: string | undefined, row: LibraryRow) => {
      if (!key) return;
      const list = map.get(key);
      if (list) list.push(row);
      else map.set(key, [row]);
    };
    for (const row of rows) {
      push(byIsrc, row.draft.isrc && normalizeIsrc(row.draft.isrc.value), row);
      push(byOuterId, row.draft.outerId?.value.trim(), row);
      push(byFile, row.draft.file.normalize('NFC'), row);
    }
    const col = (id: ColumnId) => this.mapping.indexOf(id);
    const isrcCol = col('isrc');
    const outerCol = col('outer_id');
    const fileCol = col('file');
    const changes: CsvChange[] = [];
    const unmatched: number[] = [];
    let matched = 0;
    const pending = new Map<string, DraftTrack>();
    this.body.forEach((cells, line) => {
      const cell = (i: number) => (i >= 0 ? (cells[i] ?? '').trim() : '');
      const targets =
        (cell(isrcCol) && byIsrc.get(normalizeIsrc(cell(isrcCol)))) ||
        (cell(outerCol) && byOuterId.get(cell(outerCol))) ||
        (cell(fileCol) && byFile.get(cell(fileCol).replace(/\\/g, '/').normalize('NFC'))) ||
        undefined;
      if (!targets) {
        unmatched.push(line + 2);
        return;
      }
      matched++;
      for (const row of targets) {
        let draft = pending.get(row.id) ?? row.draft;
        this.mapping.forEach((target, i) => {
          if (!target || target === 'file' || target === 'status') return;
          const value = cells[i] ?? '';
          if (value.trim() === '') return;
          const column = columns[target];
          const before = exportText(column, draft);
          if (before === value) return;
          // The same identifier spelt differently (GB-AYE-… vs GBAYE…) is not a change.
          if (target === 'isrc' && normalizeIsrc(before) === normalizeIsrc(value)) return;
          draft = write(target, draft, value, this.headers[i] ?? target);
          changes.push({
            id: row.id,
            file: row.draft.file,
            column: target,
            header: this.headers[i] ?? target,
            before,
            after: value,
          });
        });
        pending.set(row.id, draft);
      }
    });
    this.#drafts = pending;
    return { changes, matched, unmatched };
  }

  #drafts = new Map<string, DraftTrack>();

  /** Applies every previewed change as one undoable command; returns the tracks changed. */
  apply(): number {
    void this.preview;
    const edits: DraftEdit[] = [...this.#drafts].map(([id, draft]) => ({ id, draft }));
    return this.library.applyEdits(`Import ${this.fileName}`, edits);
  }
}
