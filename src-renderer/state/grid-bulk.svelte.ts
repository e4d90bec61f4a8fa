/* eslint-disable svelte/prefer-svelte-reactivity -- Maps and Sets here are local lookups of one operation. */
/**
 * The grid's operations on the selection as a whole, each one undoable command: exclude and
 * remove, split artists as validation offers, copy and paste as TSV, fill down, clear, find and
 * replace.
 */
import { applyArtistSplits } from '../../src-main/core/model/artists.js';
import { formatTsv, parseTsv } from '../../src-main/core/model/csv-text.js';
import type { ArtistSplitFix, Finding } from '../../src-main/core/model/track.js';
import { applyFindingFix } from '../../src-main/core/model/track-fixes.js';
import type { Column } from './columns.js';
import { GridEditing } from './grid-editing.svelte.js';
import { replaceEdits, type ReplaceOptions } from './grid-find.svelte.js';
import type { CellRange } from './grid-selection.svelte.js';
import type { DraftEdit } from './library-state.svelte.js';

export type { ReplaceOptions };

/** Bulk operations on top of editing. */
export class GridBulk extends GridEditing {
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

  /** The artist splits validation offers on a track. */
  #splitsOf(id: string): ArtistSplitFix[] {
    const fixes: ArtistSplitFix[] = [];
    for (const f of this.library.findings.get(id) ?? []) {
      if (f.fix?.kind === 'split-artist') fixes.push(f.fix);
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
    if (finding) return this.applyFindingFix(finding);
    const edits: DraftEdit[] = [];
    for (const id of this.selectedIds) {
      const row = this.library.row(id);
      const fixes = this.#splitsOf(id);
      if (row?.status === 'ready' && fixes.length > 0) {
        edits.push({ id, draft: applyArtistSplits(row.draft, fixes) });
      }
    }
    return this.#applyFixes('Split artists', edits);
  }

  /**
   * Applies the fix a finding offers (the inspector's button) to every selected track that has
   * the same finding, each with its own fix, as one command.
   */
  applyFindingFix(finding: Finding): number {
    const kind = finding.fix?.kind;
    if (!kind) return 0;
    const same = (f: Finding) =>
      f.fix?.kind === kind &&
      f.field === finding.field &&
      (kind !== 'split-artist' || f.message === finding.message);
    const edits: DraftEdit[] = [];
    for (const id of this.selectedIds) {
      const row = this.library.row(id);
      const own = (this.library.findings.get(id) ?? []).filter(same);
      if (row?.status !== 'ready' || own.length === 0) continue;
      edits.push({ id, draft: own.reduce((d, f) => applyFindingFix(d, f.fix!), row.draft) });
    }
    return this.#applyFixes(
      kind === 'split-artist' ? 'Split artists' : 'Use ISRC as outer_id',
      edits,
    );
  }

  #applyFixes(label: string, edits: DraftEdit[]): number {
    const n = this.library.applyEdits(label, edits);
    this.notice = n > 1 ? `${label}: ${n} tracks` : '';
    return n;
  }

  /** The columns of a range, with their view column index. */
  #columnsOf(range: CellRange): Array<{ col: number; column: Column }> {
    const result: Array<{ col: number; column: Column }> = [];
    for (let c = range.left; c <= range.right; c++) {
      const column = this.visible[c];
      if (column) result.push({ col: c, column });
    }
    return result;
  }

  /**
   * The selection as TSV (what Ctrl+C puts on the clipboard): the selected rows in view order,
   * each with the columns any range covers.
   */
  copyText(): string {
    const cols = new Set<number>();
    for (const range of this.ranges) for (const { col } of this.#columnsOf(range)) cols.add(col);
    const columns = [...cols].sort((a, b) => a - b).map((c) => this.visible[c]!);
    const lines: string[][] = [];
    for (const r of this.selectedLines) {
      const row = this.rowAt(r);
      if (row) lines.push(columns.map((column) => this.cellText(row, column)));
    }
    return formatTsv(lines);
  }

  /**
   * Pastes TSV at the selection: one value fills every selected cell; a block is written from
   * each range's top-left cell (clipped to the view). Read-only columns are skipped.
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
    for (const { top, bottom, left, right } of this.ranges) {
      if (single) {
        for (let r = top; r <= bottom; r++)
          for (let c = left; c <= right; c++) write(r, c, block[0]![0]!);
      } else {
        block.forEach((line, i) => line.forEach((value, j) => write(top + i, left + j, value)));
      }
    }
    if (!single && this.earlier.length === 0) {
      // One range grows to show the block it received.
      const { top, left } = this.range;
      this.anchor = { row: top, col: left };
      this.active = this.clampPos({
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

  /** Copies each range's top row into every row below it in that range, column by column. */
  fillDown(): number {
    const edits = new Map<string, DraftEdit['draft']>();
    for (const range of this.ranges) {
      const { top, bottom } = range;
      let first = top;
      while (first < bottom && !this.rowAt(first)) first++;
      const source = this.rowAt(first);
      if (!source || bottom <= first) continue;
      for (const { column } of this.#columnsOf(range)) {
        if (!column.set) continue;
        const value = column.get(edits.get(source.id) ?? source.draft);
        for (let r = first + 1; r <= bottom; r++) {
          const row = this.rowAt(r);
          if (!row || row.status !== 'ready') continue;
          const draft = edits.get(row.id) ?? row.draft;
          if (column.get(draft) !== value)
            edits.set(row.id, column.set(draft, value, { kind: 'manual' }));
        }
      }
    }
    const n = this.library.applyEdits(
      'Fill down',
      [...edits].map(([id, draft]) => ({ id, draft })),
    );
    this.notice = `Filled down ${n} track${n === 1 ? '' : 's'}`;
    return n;
  }

  /** Empties the editable cells of every selected range. */
  clearRange(): number {
    const edits = new Map<string, DraftEdit['draft']>();
    for (const range of this.ranges) {
      const cols = this.#columnsOf(range).filter(({ column }) => column.set);
      for (let r = range.top; r <= range.bottom; r++) {
        const row = this.rowAt(r);
        if (!row || row.status !== 'ready') continue;
        for (const { column } of cols) {
          const draft = edits.get(row.id) ?? row.draft;
          if (column.get(draft) !== '')
            edits.set(row.id, column.set!(draft, '', { kind: 'manual' }));
        }
      }
    }
    return this.library.applyEdits(
      'Clear cells',
      [...edits].map(([id, draft]) => ({ id, draft })),
    );
  }

  /** Find and replace in one column (or every editable one); returns the tracks changed. */
  replaceAll(options: ReplaceOptions): number {
    const edits = replaceEdits(this, options);
    if (typeof edits === 'string') {
      this.notice = edits;
      return 0;
    }
    const n = this.library.applyEdits('Replace', edits);
    this.notice = `Replaced in ${n} track${n === 1 ? '' : 's'}`;
    return n;
  }
}
