/**
 * One object for many equal values. What is worked out per track of a large library (a draft's
 * album key, its album fields as compared, its place on the album) is mostly the same as its
 * album's other tracks': held once per track, a 100,000-track page holds a million small objects
 * and strings more than it needs, and each full collection of the page marks them all.
 *
 * Bounded: past `max` values the pool starts again (the tracks that share values come together:
 * an album's are read, saved and validated together), so it never holds more than that many.
 * Only for values nobody changes: every holder of a key gets the same object. They are not
 * frozen, as the sourced values pooled before this pool were not: a frozen object takes another
 * shape in V8 than its unfrozen twins, and the grid's cells read both kinds.
 */
export class SharedPool<T> {
  #values = new Map<string, T>();

  constructor(readonly max: number) {}

  /** The pool's value for `key`, `value` itself when the pool has none yet. */
  get(key: string, value: T): T {
    const found = this.#values.get(key);
    if (found !== undefined) return found;
    if (this.#values.size >= this.max) this.#values = new Map();
    this.#values.set(key, value);
    return value;
  }
}

/** Strings many tracks repeat (an album's title, a folder, an audio codec's name). */
const strings = new SharedPool<string>(50_000);

/** The pool's string equal to `text` (`text` itself the first time). */
export const sharedString = (text: string): string => strings.get(text, text);
