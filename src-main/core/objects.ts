/**
 * Copies of plain objects, for the objects Courier makes by the thousand: a delivery's files, a
 * catalog's tracks, a scan's drafts.
 *
 * `{ ...base, more }` is the natural way to write such a copy, but Node 20's V8 gives every
 * object built from a spread and then given a further property a hidden class of its own. At
 * 100,000 files that costs tens of MB, a copy takes about ten times as long, and every later read
 * of those objects takes V8's slow path. `Object.assign` onto a new literal builds the same object
 * and lets them share one hidden class. (Chromium's V8 shares them either way.)
 */

/**
 * `{ ...base, ...more }`, with copies made alike sharing a hidden class. A key `more` gives
 * replaces the one in `base`, and keeps its place, as with the spread.
 */
export function withFields<B extends object, M extends object>(
  base: B,
  more: M,
): Omit<B, keyof M> & M {
  // Object.assign sets properties: an own "__proto__" (as JSON.parse makes) would set the copy's
  // prototype instead of copying the key. Such an object is copied by the spread, which defines.
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(more, '__proto__')) {
    return { ...base, ...more };
  }
  return Object.assign({}, base, more);
}
