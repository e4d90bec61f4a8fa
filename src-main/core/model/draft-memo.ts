/**
 * A value worked out once per draft object. Drafts are immutable (an edit makes a new object), so
 * a value computed from one stays right for as long as the object lives; an edit of 1,000 tracks
 * out of 100,000 recomputes only theirs.
 *
 * The values live on the draft, under one non-enumerable symbol (copying, spreading, cloning and
 * serialising a draft leave them behind), not in WeakMaps: a WeakMap's entries are ephemerons,
 * which every full garbage collection of their page marks in a fixpoint of their own. At 100,000
 * tracks, four WeakMaps of drafts made one of the page's collections pause 460 ms, 410 of them
 * marking ephemerons, while the grid scrolled.
 */
import type { DraftTrack } from './track.js';

const memoSlot = Symbol('draft memo');
let slots = 0;

type Memoized = DraftTrack & { [memoSlot]?: unknown[] };

/**
 * `compute` memoised per draft object (`compute` must not return `undefined`, which reads as not
 * computed yet). A draft that takes no new property — frozen, or a reactive proxy — is computed
 * each time.
 */
export function memoPerDraft<T extends NonNullable<unknown> | null>(
  compute: (draft: DraftTrack) => T,
): (draft: DraftTrack) => T {
  const slot = slots++;
  return (draft) => {
    const memo = (draft as Memoized)[memoSlot] ?? attachMemo(draft as Memoized);
    const known = memo?.[slot];
    if (known !== undefined) return known as T;
    const value = compute(draft);
    if (memo) memo[slot] = value;
    return value;
  };
}

function attachMemo(draft: Memoized): unknown[] | undefined {
  if (!Object.isExtensible(draft)) return undefined;
  const memo: unknown[] = [];
  try {
    Object.defineProperty(draft, memoSlot, { value: memo });
  } catch {
    // A proxy may refuse a property it cannot track (Svelte's refuses non-enumerable ones).
    return undefined;
  }
  return memo;
}
