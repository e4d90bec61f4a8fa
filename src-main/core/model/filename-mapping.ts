/**
 * Structured file names for `POST /ingestion/audio_mapping` (service-interface 4.4): the name
 * without its extension is split by a separator and each column names one of five fields.
 *
 * The one parser and checker of a mapping, whatever it comes from (a YAML file, `--separator`
 * and `--columns`, the Deliver screen's builder). It refuses exactly what the service refuses,
 * so that a delivery the plan accepts is never turned down with a 400 after its upload.
 */
import { parse as parseYaml, Scalar, stringify as stringifyYaml } from 'yaml';

import { UsageError } from '../errors.js';
import { fileStem } from './audio-formats.js';
import { isCalendarDate } from './dates.js';
import { quoted } from './user-text.js';

/** The fields a mapping column may name. */
export const mappingFields = ['outer_id', 'title', 'isrc', 'release_date', 'artist_name'] as const;

/** One of the five mapping fields. */
export type MappingField = (typeof mappingFields)[number];

/** A separator and the field of each mapped column, left to right. */
export interface FileNameMapping {
  separator: string;
  columns: MappingField[];
  /**
   * The column number (N of `column_N`) of each entry of `columns`, ascending. Absent: 0, 1,
   * 2, …. A number left out is a part of the file name the service skips.
   */
  positions?: number[];
}

/** What one file name gives under a mapping, or why it does not fit. */
export type FileNameMatch =
  { ok: true; values: Partial<Record<MappingField, string>> } | { ok: false; message: string };

/** A file name the service would refuse (or silently drop), with the reason. */
export interface MappingFinding {
  path: string;
  message: string;
}

const isField = (value: unknown): value is MappingField =>
  typeof value === 'string' && (mappingFields as readonly string[]).includes(value);

/** The column number of each mapped column (explicit, or 0, 1, 2, …). */
export function mappingPositions(mapping: FileNameMapping): number[] {
  return mapping.positions ?? mapping.columns.map((_, i) => i);
}

/** Why a mapping itself is unusable (one line), or null. */
export function mappingProblem(mapping: FileNameMapping): string | null {
  if (typeof mapping.separator !== 'string' || mapping.separator === '') {
    return 'the separator must be a non-empty string';
  }
  for (const column of mapping.columns) {
    if (!isField(column)) {
      return `${quoted(String(column))} is not a mapping field (allowed: ${mappingFields.join(', ')})`;
    }
  }
  const repeated = mapping.columns.find((c, i) => mapping.columns.indexOf(c) !== i);
  if (repeated) return `${quoted(repeated)} is mapped twice`;
  const positions = mappingPositions(mapping);
  if (positions.length !== mapping.columns.length) {
    return 'the mapping has a column number for each field';
  }
  for (const [i, position] of positions.entries()) {
    // An absurdly long column_N is still a number to the service (Infinity included).
    if (
      typeof position !== 'number' ||
      !(position >= 0) ||
      (Number.isFinite(position) && !Number.isInteger(position))
    ) {
      return `column number ${quoted(String(position))} is not a whole number`;
    }
    if (i > 0 && position <= positions[i - 1]!) {
      return position === positions[i - 1]
        ? `column_${position} appears twice`
        : 'the mapping columns are not in ascending order';
    }
  }
  if (!mapping.columns.includes('outer_id')) {
    return 'no column takes outer_id, which the service needs from each file name';
  }
  return null;
}

/** Throws a UsageError when the mapping is unusable; returns it otherwise. */
export function checkedMapping(mapping: FileNameMapping): FileNameMapping {
  const problem = mappingProblem(mapping);
  if (problem) throw new UsageError(`the mapping is unusable: ${problem}`);
  return mapping;
}

/** The YAML parser's error as one line: what it says, and where. */
function yamlErrorLine(error: unknown): string {
  const e = error as { message?: unknown; linePos?: { line: number; col: number }[] };
  const first = String(e.message ?? error)
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/[.:]\s*$/, '');
  const at = e.linePos?.[0];
  return at ? `line ${at.line}, column ${at.col}: ${first}` : first;
}

/** Reads a mapping YAML document (4.4); anything the service would refuse is a UsageError. */
export function parseMappingYaml(text: string): FileNameMapping {
  let doc: unknown;
  try {
    // The same parser and defaults as the service; warnings are not errors to it either.
    doc = parseYaml(text, { logLevel: 'error' });
  } catch (error) {
    throw new UsageError(`the mapping is not valid YAML (${yamlErrorLine(error)})`);
  }
  const list = (doc as { mapping?: unknown } | null)?.mapping;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(list)) {
    throw new UsageError('the mapping needs a top-level `mapping:` list');
  }
  let separator: string | undefined;
  const columns: { position: number; field: MappingField }[] = [];
  for (const [i, entry] of list.entries()) {
    const keys = typeof entry === 'object' && entry !== null ? Object.keys(entry) : [];
    if (keys.length !== 1) {
      throw new UsageError(
        `mapping entry ${i + 1} must have exactly one key (separator or column_N)`,
      );
    }
    const key = keys[0]!;
    const value = (entry as Record<string, unknown>)[key];
    if (key === 'separator') {
      if (separator !== undefined) throw new UsageError('the mapping has more than one separator');
      if (typeof value !== 'string' || value === '') {
        throw new UsageError('the mapping separator must be a non-empty string');
      }
      separator = value;
      continue;
    }
    const column = /^column_(\d+)$/.exec(key);
    if (!column) {
      throw new UsageError(
        `the mapping has an unknown key ${quoted(key)}; use separator or column_N`,
      );
    }
    if (!isField(value)) {
      throw new UsageError(
        `mapping ${key} names ${quoted(oneLine(value))}; allowed fields are ${mappingFields.join(', ')}`,
      );
    }
    const position = Number(column[1]);
    if (columns.some((c) => c.position === position)) {
      throw new UsageError(`the mapping has column_${position} twice`);
    }
    if (columns.some((c) => c.field === value)) {
      throw new UsageError(`the mapping takes ${quoted(value)} from two columns`);
    }
    columns.push({ position, field: value });
  }
  if (separator === undefined) throw new UsageError('the mapping has no separator entry');
  columns.sort((a, b) => a.position - b.position);
  const dense = columns.every((c, i) => c.position === i);
  return checkedMapping({
    separator,
    columns: columns.map((c) => c.field),
    ...(dense ? {} : { positions: columns.map((c) => c.position) }),
  });
}

/**
 * The mapping of `--separator S --columns a,b,c`: fields in column order, an empty entry
 * (`outer_id,,title`) a part of the name to skip. A UsageError when the service would refuse it.
 */
export function mappingFromOptions(separator: string, columns: string): FileNameMapping {
  const names = columns.split(',').map((c) => c.trim());
  const fields: MappingField[] = [];
  const positions: number[] = [];
  for (const [i, name] of names.entries()) {
    if (name === '') continue;
    if (!isField(name)) {
      throw new UsageError(
        `--columns names ${quoted(name)}; allowed fields are ${mappingFields.join(', ')}`,
      );
    }
    fields.push(name);
    positions.push(i);
  }
  const dense = positions.every((p, i) => p === i);
  return checkedMapping({ separator, columns: fields, ...(dense ? {} : { positions }) });
}

/**
 * A column of the Deliver screen's builder: the field a part of the file name gives, or
 * `ignore`, a part the mapping skips (no `column_N` names it; the service never reads it).
 */
export type BuilderColumn = MappingField | 'ignore';

/** What a builder column may be set to, in the order the builder offers them. */
export const builderChoices: readonly BuilderColumn[] = [...mappingFields, 'ignore'];

/** The most columns the builder shows (a name split in more parts is told so, per file). */
export const MAX_BUILDER_COLUMNS = 16;

/** The mapping of the builder's columns: each field at its column's number, `ignore`s skipped. */
export function mappingFromBuilder(
  separator: string,
  columns: readonly BuilderColumn[],
): FileNameMapping {
  const fields: MappingField[] = [];
  const positions: number[] = [];
  columns.forEach((column, i) => {
    if (column === 'ignore') return;
    fields.push(column);
    positions.push(i);
  });
  const dense = positions.every((p, i) => p === i);
  return { separator, columns: fields, ...(dense ? {} : { positions }) };
}

/**
 * The builder's columns for a mapping: a part it skips shows as `ignore`. A UsageError for a
 * mapping naming a column beyond what the builder shows (deliver it with `courier deliver --mapping`).
 */
export function builderColumns(mapping: FileNameMapping): BuilderColumn[] {
  const positions = mappingPositions(mapping);
  const last = Math.max(-1, ...positions);
  if (last >= MAX_BUILDER_COLUMNS) {
    throw new UsageError(
      `the mapping reads column_${columnNumberText(last)}, beyond the ${MAX_BUILDER_COLUMNS} columns the Deliver screen shows; deliver it with courier deliver --mapping`,
    );
  }
  const columns: BuilderColumn[] = Array.from({ length: last + 1 }, () => 'ignore');
  positions.forEach((position, i) => (columns[position] = mapping.columns[i]!));
  return columns;
}

/**
 * What the builder says of a name split in more parts than it has columns: the service reads
 * only the parts its columns name, so the rest (a title holding the separator, a suffix) is not
 * sent. Undefined when the name has no part beyond the columns.
 */
export function extraPartsNote(
  path: string,
  separator: string,
  columns: number,
): string | undefined {
  if (separator === '' || columns < 1) return undefined;
  const stem = fileStem(deliveredName(path));
  const parts = stem.split(separator);
  if (parts.length <= columns) return undefined;
  const extra = parts.slice(columns).join(separator);
  return `${quoted(stem)} has ${parts.length} parts, the mapping ${columns} column(s): ${quoted(extra)} after column ${columns} is not sent (add a column, or set it to ignore)`;
}

/** Separators the builder tries on the library's names, most usual first. */
const SEPARATORS = ['_', ' - ', '-', '.', ' '];

/**
 * The builder as it opens on a library's file names: a separator that splits them (the current
 * one when it does), as many columns as most names have parts, and a guess at each column —
 * outer_id first, ISRC and YYYYMMDD dates where every name has one there, then the title; the
 * parts left over are `ignore`d, for the user to name.
 */
export function suggestBuilder(
  paths: readonly string[],
  current?: string,
): { separator: string; columns: BuilderColumn[] } {
  const stems = paths.map((p) => fileStem(deliveredName(p)));
  const usual = (separator: string) => {
    const counts = new Map<number, number>();
    for (const stem of stems) {
      const n = stem.split(separator).length;
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    // The part count most names have; the larger one on a tie.
    let best = 1;
    let seen = 0;
    for (const [n, count] of counts) {
      if (count > seen || (count === seen && n > best)) [best, seen] = [n, count];
    }
    return { parts: Math.min(best, MAX_BUILDER_COLUMNS), names: seen };
  };
  const candidates = [...(current ? [current] : []), ...SEPARATORS.filter((s) => s !== current)];
  const splitting = candidates
    .map((separator) => ({ separator, ...usual(separator) }))
    .filter((c) => c.parts > 1);
  const chosen =
    splitting.find((c) => c.separator === current && c.names * 2 >= stems.length) ??
    splitting.sort((a, b) => b.names - a.names)[0];
  const separator = chosen?.separator ?? current ?? '_';
  const width = Math.max(2, chosen?.parts ?? 2);
  // Guesses read the names split as most are: a stray name does not spoil them.
  const typical = stems
    .map((stem) => stem.split(separator).map((part) => part.trim()))
    .filter((parts) => parts.length >= width);
  const every = (i: number, test: (part: string) => boolean) =>
    typical.length > 0 && typical.every((parts) => test(parts[i]!));
  const columns: BuilderColumn[] = Array.from({ length: width }, () => 'ignore');
  const guess = (field: MappingField, test: (part: string) => boolean) => {
    const at = columns.findIndex((c, i) => i > 0 && c === 'ignore' && every(i, test));
    if (at > 0) columns[at] = field;
  };
  columns[0] = 'outer_id';
  guess('isrc', (part) => /^[A-Z]{2}-?[A-Z0-9]{3}-?\d{2}-?\d{5}$/i.test(part));
  guess('release_date', isServiceDate);
  guess('title', (part) => /\p{L}/u.test(part));
  return { separator, columns };
}

/** The name the service sees: the bucket key's last segment (NFC, `\` as a folder break). */
function deliveredName(path: string): string {
  const key = path.normalize('NFC').replaceAll('\\', '/');
  return key.slice(key.lastIndexOf('/') + 1);
}

/** Splits one file name (extension excluded) into the mapping's fields, as the service does. */
export function applyFileNameMapping(path: string, mapping: FileNameMapping): FileNameMatch {
  const name = deliveredName(path);
  // The service lists a delivery folder without its hidden files: such a file is never ingested.
  if (name.startsWith('.')) {
    return {
      ok: false,
      message: `${quoted(name)} starts with '.', and the service skips hidden files; rename it`,
    };
  }
  const stem = fileStem(name);
  const parts = stem.split(mapping.separator);
  const positions = mappingPositions(mapping);
  const needed = Math.max(...positions) + 1;
  if (parts.length < needed) {
    return {
      ok: false,
      message: `${quoted(stem)} has ${parts.length} part(s) separated by ${quoted(mapping.separator)}, the mapping expects ${needed}`,
    };
  }
  const values: Partial<Record<MappingField, string>> = {};
  for (const [i, field] of mapping.columns.entries()) {
    const position = positions[i]!;
    const value = parts[position]!.trim();
    if (value === '') {
      return { ok: false, message: `${quoted(stem)} has an empty ${field} (column_${position})` };
    }
    if (field === 'release_date' && !isServiceDate(value)) {
      return {
        ok: false,
        message: `${quoted(stem)} has release_date ${quoted(value)}, not a date YYYYMMDD (column_${position})`,
      };
    }
    values[field] = value;
  }
  return { ok: true, values };
}

/**
 * Each file name under a mapping, in order: its values, or why the service would refuse it.
 * A name giving an outer_id an earlier name gives does not fit either: the service would keep
 * only one entry for both.
 */
export function matchFileNames(
  paths: readonly string[],
  mapping: FileNameMapping,
): FileNameMatch[] {
  const seen = new Map<string, string>();
  return paths.map((path) => {
    const match = applyFileNameMapping(path, mapping);
    if (!match.ok) return match;
    const outerId = match.values.outer_id!;
    const first = seen.get(outerId);
    if (first === undefined) {
      seen.set(outerId, path);
      return match;
    }
    return {
      ok: false,
      message: `${quoted(fileStem(deliveredName(path)))} gives outer_id ${quoted(outerId)} like ${quoted(fileStem(deliveredName(first)))}, and the service keeps one entry per outer_id`,
    };
  });
}

/** The file names that do not fit a mapping, each with the reason (see matchFileNames). */
export function unfitFileNames(paths: string[], mapping: FileNameMapping): MappingFinding[] {
  const matches = matchFileNames(paths, mapping);
  return paths.flatMap((path, i) => {
    const match = matches[i]!;
    return match.ok ? [] : [{ path, message: match.message }];
  });
}

/** The mapping as the YAML document 4.4 describes (`mapping:` with single-key entries). */
export function mappingToYaml(mapping: FileNameMapping): string {
  const positions = mappingPositions(mapping);
  // Quoted, so that a separator such as '#' or ' - ' reads as what it is; the library escapes.
  const separator = new Scalar(mapping.separator);
  separator.type = 'QUOTE_SINGLE';
  return stringifyYaml({
    mapping: [
      { separator },
      ...mapping.columns.map((field, i) => ({
        [`column_${columnNumberText(positions[i]!)}`]: field,
      })),
    ],
  });
}

/** YYYYMMDD naming a real day, as the service reads it (it takes years 0–99 as 1900–1999). */
function isServiceDate(text: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  return year >= 100 && isCalendarDate(year, Number(m[2]), Number(m[3]));
}

/** A column number in digits, however large (an over-long column_N reads as Infinity). */
function columnNumberText(position: number): string {
  if (position === Infinity) return '9'.repeat(400);
  return Number.isSafeInteger(position) ? String(position) : BigInt(position).toString();
}

function oneLine(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.replace(/\s+/g, ' ').slice(0, 80);
}
