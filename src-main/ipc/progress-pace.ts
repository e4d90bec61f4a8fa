/**
 * How often a long operation's progress goes to the renderer: at most every quarter second,
 * and always the last (done === total), so a bar ends full without flooding the channel.
 */
const PROGRESS_EVERY_MS = 250;

/** A gate asked at each progress step: whether this one is sent. */
export function progressPace(): (done: number, total: number) => boolean {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done < total && now - last < PROGRESS_EVERY_MS) return false;
    last = now;
    return true;
  };
}
