/**
 * Work over a whole library, as steps: a generator that yields every few hundred items, so the
 * page can spread a pass over 100,000 tracks across frames (no pause of the page over a few
 * milliseconds) while the CLI and main run the same pass to its end at once (`finish`).
 */

/** A pass that yields now and then and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Items between two yields: well under a millisecond of work at a few microseconds an item. */
const stepSize = 256;

/** Counts a pass's work and says when it yields: `if (pace.step()) yield;` after each item. */
export class Pace {
  #done = 0;

  /** Counts `work` items (an album of 12 tracks: 12); true once a step's worth is done. */
  step(work = 1): boolean {
    this.#done += work;
    if (this.#done < stepSize) return false;
    this.#done = 0;
    return true;
  }
}

/** Runs a pass to its end at once. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
