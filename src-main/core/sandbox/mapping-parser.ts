import { parse } from 'yaml';

import { badRequest } from './http-kit.js';
import { isCalendarDate } from './track-validation.js';

/** Fields a filename mapping may fill (section 4.4). */
export const MAPPING_FIELDS = ['outer_id', 'title', 'isrc', 'release_date', 'artist_name'] as const;
export type MappingField = (typeof MAPPING_FIELDS)[number];

/** A parsed mapping: the separator and the field read from each position. */
export interface FilenameMapping {
  separator: string;
  columns: { index: number; field: MappingField }[];
}

/** What a mapping extracts from one filename. */
export type MappedFields = Partial<Record<Exclude<MappingField, 'release_date'>, string>> & {
  outer_id: string;
  release_date?: number;
};

/** Parses and checks a mapping YAML document; any deviation from section 4.4 is a 400. */
export function parseMapping(text: string): FilenameMapping {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw badRequest(
      'invalid_mapping',
      `The mapping is not valid YAML: ${(error as Error).message}`,
    );
  }
  const list = (doc as { mapping?: unknown } | null)?.mapping;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(list)) {
    throw badRequest(
      'invalid_mapping',
      "The mapping must have a top-level key 'mapping' holding a list.",
    );
  }
  let separator: string | undefined;
  const columns: FilenameMapping['columns'] = [];
  for (const [position, entry] of list.entries()) {
    const keys = typeof entry === 'object' && entry !== null ? Object.keys(entry) : [];
    if (keys.length !== 1) {
      throw badRequest('invalid_mapping', `Mapping entry ${position} must be a single-key object.`);
    }
    const key = keys[0]!;
    const value = (entry as Record<string, unknown>)[key];
    if (key === 'separator') {
      if (separator !== undefined)
        throw badRequest('invalid_mapping', 'The mapping has more than one separator.');
      if (typeof value !== 'string' || value === '') {
        throw badRequest('invalid_mapping', 'The mapping separator must be a non-empty string.');
      }
      separator = value;
      continue;
    }
    const column = /^column_(\d+)$/.exec(key);
    if (!column) {
      throw badRequest(
        'invalid_mapping',
        `Unknown mapping key '${key}'; use separator or column_N.`,
      );
    }
    if (typeof value !== 'string' || !(MAPPING_FIELDS as readonly string[]).includes(value)) {
      throw badRequest(
        'invalid_mapping',
        `Mapping ${key} names '${String(value)}'; allowed fields are ${MAPPING_FIELDS.join(', ')}.`,
      );
    }
    const index = Number(column[1]);
    if (columns.some((c) => c.index === index))
      throw badRequest('invalid_mapping', `Mapping ${key} appears twice.`);
    if (columns.some((c) => c.field === value)) {
      throw badRequest('invalid_mapping', `Mapping field '${value}' is taken from two columns.`);
    }
    columns.push({ index, field: value as MappingField });
  }
  if (separator === undefined)
    throw badRequest('invalid_mapping', 'The mapping needs one separator entry.');
  if (!columns.some((c) => c.field === 'outer_id')) {
    throw badRequest('invalid_mapping', 'The mapping must take outer_id from one column.');
  }
  return { separator, columns: columns.sort((a, b) => a.index - b.index) };
}

/** Applies a mapping to a filename (extension excluded); returns a problem text when it does not fit. */
export function applyMapping(mapping: FilenameMapping, filename: string): MappedFields | string {
  const dot = filename.lastIndexOf('.');
  const stem = dot > 0 ? filename.slice(0, dot) : filename;
  const parts = stem.split(mapping.separator);
  const needed = Math.max(...mapping.columns.map((c) => c.index)) + 1;
  if (parts.length < needed) {
    return `'${filename}' has ${parts.length} part(s) split by '${mapping.separator}', the mapping needs ${needed}`;
  }
  const fields: Record<string, string | number> = {};
  for (const { index, field } of mapping.columns) {
    const value = parts[index]!.trim();
    if (value === '') return `'${filename}' has an empty ${field} (column_${index})`;
    if (field === 'release_date') {
      if (!isCalendarDate(value))
        return `'${filename}' has release_date '${value}', expected YYYYMMDD`;
      fields[field] = Number(value);
    } else {
      fields[field] = value;
    }
  }
  return fields as MappedFields;
}
