/**
 * How far a Courier process lets its JavaScript heap grow past what it holds. V8's default lets
 * the heap reach up to four times its live objects before a full collection: a delivery of
 * 100,000 tracks, holding some 200 MB while it plans, peaked at 1 GB of RSS, most of it garbage
 * waiting. Collecting once the heap is a quarter over what was live at the last collection keeps
 * a 20,000-track delivery at 264 MiB instead of 423 MiB, for collections that run beside the
 * work on a second core (`npm run bench:scale` measures both).
 */
import { setFlagsFromString } from 'node:v8';

/** How far past its live objects the heap grows before the next full collection, in percent. */
export const HEAP_GROWTH_PERCENT = 25;

/**
 * Bounds this process's heap growth (it applies from the next collection on, to the process
 * and its worker threads). Called once per process, by `createServices`.
 */
export function boundHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWTH_PERCENT}`);
}
