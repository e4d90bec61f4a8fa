/**
 * Tag-from-file-name: what a pattern gives for each selected track, as a preview, and the edits
 * to apply. Only empty fields are filled unless asked to overwrite.
 */
import { metadataCells } from '../../src-main/core/model/metadata-columns.js';
import type { DraftTrack } from '../../src-main/core/model/track.js';
import { compilePattern, matchPattern, patternFields } from '../lib/filename-pattern.js';
import type { ColumnId } from './columns.js';
import type { DraftEdit, LibraryRow } from './library-state.svelte.js';

/** What the pattern gives one track. */
export interface PatternPreview {
  id: string;
  file: string;
  /** null when the file name does not fit the pattern. */
  values: Array<{ column: ColumnId; value: string; applied: boolean }> | null;
}

/** The preview and the edits of a pattern over some rows, or why the pattern is unusable. */
export function tagFromFileName(
  rows: readonly LibraryRow[],
  pattern: string,
  overwrite: boolean,
): { ok: true; preview: PatternPreview[]; edits: DraftEdit[] } | { ok: false; message: string } {
  const compiled = compilePattern(pattern);
  if (!compiled.ok) return compiled;
  const preview: PatternPreview[] = [];
  const edits: DraftEdit[] = [];
  for (const row of rows) {
    if (row.status !== 'ready') continue;
    const match = matchPattern(compiled, row.draft.file);
    if (!match) {
      preview.push({ id: row.id, file: row.draft.file, values: null });
      continue;
    }
    let draft: DraftTrack = row.draft;
    const values: NonNullable<PatternPreview['values']> = [];
    for (const [field, value] of Object.entries(match)) {
      const id = patternFields[field as keyof typeof patternFields];
      // The sheet's cell, not the grid's: a file name's artist is the main one.
      const cell = metadataCells[id];
      const current = cell.get(draft);
      const applied = current !== value && (overwrite || current.trim() === '');
      if (applied) draft = cell.set!(draft, value, { kind: 'file-name' });
      values.push({ column: id, value, applied });
    }
    preview.push({ id: row.id, file: row.draft.file, values });
    if (draft !== row.draft) edits.push({ id: row.id, draft });
  }
  return { ok: true, preview, edits };
}
