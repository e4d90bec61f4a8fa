/**
 * Structured file names for `POST /ingestion/audio_mapping` (service-interface 4.4): the name
 * without its extension is split by a separator and each column names one of five fields.
 */
import { fileStem } from './audio-formats.js';

/** The fields a mapping column may name. */
export const mappingFields = ['outer_id', 'title', 'isrc', 'release_date', 'artist_name'] as const;

/** One of the five mapping fields. */
export type MappingField = (typeof mappingFields)[number];

/** A separator and the field of each column, in order (column_0, column_1, ...). */
export interface FileNameMapping {
  separator: string;
  columns: MappingField[];
}

/** What one file name gives under a mapping, or why it does not fit. */
export type FileNameMatch =
  { ok: true; values: Partial<Record<MappingField, string>> } | { ok: false; message: string };

/** Why a mapping itself is unusable, or null. */
export function mappingProblem(mapping: FileNameMapping): string | null {
  if (mapping.separator === '') return 'the separator is empty';
  if (mapping.columns.length === 0) return 'the mapping has no column';
  for (const column of mapping.columns) {
    if (!(mappingFields as readonly string[]).includes(column)) {
      return `'${String(column)}' is not a mapping field (allowed: ${mappingFields.join(', ')})`;
    }
  }
  const repeated = mapping.columns.find((c, i) => mapping.columns.indexOf(c) !== i);
  if (repeated) return `'${repeated}' is mapped twice`;
  return null;
}

/** Splits one file name (extension excluded) into the mapping's fields. */
export function applyFileNameMapping(path: string, mapping: FileNameMapping): FileNameMatch {
  const stem = fileStem(path).normalize('NFC');
  const parts = stem.split(mapping.separator);
  if (parts.length !== mapping.columns.length) {
    return {
      ok: false,
      message: `'${stem}' has ${parts.length} part(s) separated by '${mapping.separator}', the mapping expects ${mapping.columns.length}`,
    };
  }
  const values: Partial<Record<MappingField, string>> = {};
  for (const [i, field] of mapping.columns.entries()) {
    const value = parts[i]!.trim();
    if (value === '') return { ok: false, message: `'${stem}' has an empty ${field}` };
    values[field] = value;
  }
  return { ok: true, values };
}

/** The file names that do not fit a mapping, each with the reason. */
export function unfitFileNames(
  paths: string[],
  mapping: FileNameMapping,
): { path: string; message: string }[] {
  const unfit: { path: string; message: string }[] = [];
  for (const path of paths) {
    const match = applyFileNameMapping(path, mapping);
    if (!match.ok) unfit.push({ path, message: match.message });
  }
  return unfit;
}

/** The mapping as the YAML document 4.4 describes (`mapping:` with single-key entries). */
export function mappingToYaml(mapping: FileNameMapping): string {
  const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
  return [
    'mapping:',
    `  - separator: ${quote(mapping.separator)}`,
    ...mapping.columns.map((field, i) => `  - column_${i}: ${field}`),
    '',
  ].join('\n');
}
