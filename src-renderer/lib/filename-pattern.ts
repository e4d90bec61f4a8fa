/**
 * Tag-from-file-name patterns such as `%track% - %artist% - %title%`: placeholders match text
 * in the file name (extension excluded; `/` in a pattern reaches into folders), literal text
 * between them must match exactly.
 */
import type { ColumnId } from '../state/columns.js';

/** Placeholders a pattern may use and the column each fills. */
export const patternFields = {
  track: 'track',
  disk: 'disk',
  artist: 'artists',
  title: 'title',
  album: 'album',
  isrc: 'isrc',
  upc: 'upc',
  date: 'release_date',
  outer_id: 'outer_id',
} as const satisfies Record<string, ColumnId>;

/** A placeholder name. */
export type PatternField = keyof typeof patternFields;

/** A compiled pattern, or why it can't be used. */
export type CompiledPattern =
  | { ok: true; regex: RegExp; fields: PatternField[]; folders: number }
  | { ok: false; message: string };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiles a pattern; `%_%` (or any unknown name prefixed with `_`) matches text that is skipped. */
export function compilePattern(pattern: string): CompiledPattern {
  if (pattern.trim() === '') return { ok: false, message: 'the pattern is empty' };
  const fields: PatternField[] = [];
  let source = '';
  let last = 0;
  const re = /%([a-z_]+)%/g;
  for (let m = re.exec(pattern); m; m = re.exec(pattern)) {
    source += escape(pattern.slice(last, m.index));
    const name = m[1]!;
    if (name.startsWith('_')) source += '[^/]*?';
    else if (name in patternFields) {
      if (fields.includes(name as PatternField))
        return { ok: false, message: `%${name}% is used twice` };
      fields.push(name as PatternField);
      source += '([^/]*?)';
    } else {
      return {
        ok: false,
        message: `%${name}% is not a field (use ${Object.keys(patternFields)
          .map((f) => `%${f}%`)
          .join(', ')})`,
      };
    }
    last = m.index + m[0].length;
  }
  source += escape(pattern.slice(last));
  if (fields.length === 0) return { ok: false, message: 'the pattern has no %field%' };
  const folders = pattern.split('/').length - 1;
  return { ok: true, regex: new RegExp(`^${source}$`), fields, folders };
}

/** What a compiled pattern reads from one file path: the values, or null when it does not fit. */
export function matchPattern(
  compiled: Extract<CompiledPattern, { ok: true }>,
  path: string,
): Partial<Record<PatternField, string>> | null {
  const parts = path.normalize('NFC').split('/');
  const name = parts.slice(-1 - compiled.folders).join('/');
  const dot = name.lastIndexOf('.');
  const stem = dot > name.lastIndexOf('/') + 1 ? name.slice(0, dot) : name;
  const m = compiled.regex.exec(stem);
  if (!m) return null;
  const values: Partial<Record<PatternField, string>> = {};
  compiled.fields.forEach((field, i) => {
    const value = m[i + 1]!.trim();
    if (value !== '') values[field] = value;
  });
  return values;
}
