import { SharedPool } from './shared-pool.js';
import type { DraftAlbum, DraftTrack, Sourced, ValueSource } from './track.js';

/**
 * The sources drafts point at, one object each. A draft that crosses a thread or process
 * boundary (a tags worker's result, a saved library loaded) arrives with its own copy of every
 * value's source, `{ kind: 'tag', tag: 'TIT2' }`: a dozen objects and two dozen strings per
 * track, a fifth of the page's heap for a 100,000-track library, all of it the same few hundred
 * values. Bounded: names come from files and CSV headers, so past the bound a source stays its own.
 */
const shared = new Map<string, ValueSource>();
const SHARED_MAX = 4096;

/** The key of a source, or undefined for one with fields no source has (kept as it is). */
function keyOf(source: ValueSource): string | undefined {
  const fields = Object.keys(source).length;
  switch (source.kind) {
    case 'tag':
      if (typeof source.tag !== 'string') return undefined;
      return fields === (source.joinedWith === undefined ? 2 : 3)
        ? `tag\0${source.tag}\0${source.joinedWith ?? ''}`
        : undefined;
    case 'csv':
      if (source.column !== undefined && typeof source.column !== 'string') return undefined;
      return fields === (source.column === undefined ? 1 : 2)
        ? `csv\0${source.column ?? ''}`
        : undefined;
    case 'derived':
      return fields === 2 && typeof source.from === 'string'
        ? `derived\0${source.from}`
        : undefined;
    case 'file-name':
    case 'manual':
      return fields === 1 ? source.kind : undefined;
    default:
      return undefined;
  }
}

/** The one frozen object of `source` (or `source` itself past the bound or when unknown). */
export function sharedSource(source: ValueSource): ValueSource {
  const key = keyOf(source);
  if (key === undefined) return source;
  const found = shared.get(key);
  if (found) return found;
  if (shared.size >= SHARED_MAX) return source;
  const one = Object.freeze({ ...source });
  shared.set(key, one);
  return one;
}

const isSourced = (value: unknown): value is Sourced<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  'source' in value &&
  typeof (value as { source: unknown }).source === 'object' &&
  (value as { source: unknown }).source !== null;

/**
 * The values many tracks share, one object each: an album's title, UPC, label, date and other
 * fields (not its track position), and a track's artists, tags, references and date. A page of
 * 100,000 tracks held 1.55 million sourced values, with their strings and arrays most of its
 * heap, and each full collection of the page marks all of it: shared, the reopened page's heap
 * went 201 → 147 MB. Drafts are immutable, so one object serves them all. Held for the tracks
 * that come together (an album's are read and saved together): past the bound the pool starts
 * again, so it never holds more than that many.
 */
const sharedValues = new SharedPool<Sourced<unknown>>(20_000);

const sharedTrackFields: ReadonlySet<string> = new Set<keyof DraftTrack>([
  'artists',
  'customerTags',
  'references',
  'releaseDate',
]);
const unsharedAlbumFields: ReadonlySet<string> = new Set<keyof DraftAlbum>(['trackPosition']);

/** The one object of a value and its (shared) source in `field`, or `sourced` itself. */
function sharedValue(field: string, sourced: Sourced<unknown>): Sourced<unknown> {
  const source = keyOf(sourced.source);
  if (source === undefined || Object.keys(sourced).length !== 2) return sourced;
  const { value } = sourced;
  const key = `${field}\0${source}\0${typeof value === 'string' ? value : JSON.stringify(value)}`;
  return sharedValues.get(key, sourced);
}

/**
 * `fields` with each sourced value's source the shared one, and each value `shares` names the
 * one shared object of it (the same object when all are).
 */
function withShared<T extends object>(
  fields: T,
  field: string,
  shares: (name: string) => boolean,
): T {
  let out: T | undefined;
  for (const name in fields) {
    const value = fields[name];
    if (!isSourced(value)) continue;
    const source = sharedSource(value.source);
    let next: Sourced<unknown> = source === value.source ? value : { ...value, source };
    if (shares(name)) next = sharedValue(field + name, next);
    if (next === value) continue;
    out ??= { ...fields };
    out[name] = next as T[typeof name];
  }
  return out ?? fields;
}

/**
 * The draft with every value's source the one shared object of it, and the values an album's
 * tracks repeat shared too: the same values, a fraction of the memory once thousands of drafts
 * came from a worker or a saved library.
 */
export function withSharedSources(draft: DraftTrack): DraftTrack {
  let own = withShared(draft, '', (name) => sharedTrackFields.has(name));
  if (own !== draft) {
    // Come from a worker or a saved library (its sources were its own): its primary media,
    // the file's path, and its outer_id, most often the ISRC, are copies of those strings (8 MB
    // at 100,000 tracks). A draft shared already is handed back as it is.
    own = {
      ...own,
      ...(own.primaryMedia && { primaryMedia: sameString(own.primaryMedia, own.file) }),
      ...(own.outerId && { outerId: sameString(own.outerId, own.isrc?.value) }),
    };
  }
  const album =
    draft.album &&
    withShared<DraftAlbum>(draft.album, 'album.', (name) => !unsharedAlbumFields.has(name));
  if (album === draft.album) return own;
  return { ...own, album };
}

/** `sourced` holding `text` itself when its value equals it (a new object; else `sourced`). */
function sameString(sourced: Sourced<string>, text: string | undefined): Sourced<string> {
  return sourced.value === text ? { ...sourced, value: text } : sourced;
}
