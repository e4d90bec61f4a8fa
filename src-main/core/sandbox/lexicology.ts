import { badRequest, type ListFields } from './http-kit.js';
import { type Tag, VOCABULARY } from './vocabulary.js';

/** Page size when `limit` is absent (the interface does not say; the client must not rely on it). */
export const DEFAULT_TAG_LIMIT = 50;
/** Largest accepted `limit`; a larger value is a 400. */
export const MAX_TAG_LIMIT = 1000;

/** Lists tags for `GET /lexicology/tags`: filters, then the page with its list fields. */
export function listTags(query: URLSearchParams): { data: Tag[]; list: ListFields } {
  const limit = integerParam(query, 'limit', DEFAULT_TAG_LIMIT, 1, MAX_TAG_LIMIT);
  const offset = integerParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const category = query.get('category_name');
  const name = query.get('name');
  const needle = name?.toLowerCase();
  const matching = VOCABULARY.filter(
    (tag) =>
      (category === null || tag.category.name.toLowerCase() === category.toLowerCase()) &&
      (needle === undefined || tag.name.toLowerCase().includes(needle)),
  );
  const data = matching.slice(offset, offset + limit);
  return { data, list: { offset, limit, size: data.length, total_size: matching.length } };
}

function integerParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(
      'invalid_parameter',
      `Query parameter '${name}' must be an integer from ${min} to ${max}, not '${raw}'.`,
      { parameter: name },
    );
  }
  return value;
}
