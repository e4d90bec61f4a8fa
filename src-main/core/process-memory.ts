/**
 * How far a Courier process lets its JavaScript heap grow past what it holds. V8's default lets
 * the heap reach up to four times its live objects before a full collection: a delivery of
 * 100,000 tracks, holding some 200 MB while it plans, peaked at 1 GB of RSS, most of it garbage
 * waiting. How far is a trade: each full collection pauses the event loop a little, more often
 * the tighter the bound (`npm run bench:scale` and `bench:library-save` measure both sides).
 */
import { setFlagsFromString } from 'node:v8';

/**
 * Growth past the live objects of the last full collection, in percent, by kind of process. A
 * batch process (the CLI) keeps its memory tight: at a quarter, a 20,000-track delivery peaked at
 * 264–272 MiB instead of 423 MiB, its requests no slower; at a tenth, a 100,000-track delivery
 * peaked at 454 MiB instead of 514 (planning alone: 480–494 MiB at a quarter, 456–463 at 12 %,
 * 446 at 6 %, in the same time). An interactive one (the app's main process, the browser host)
 * answers the window: at a quarter, collecting a 100,000-row library paused it 146–198 ms while
 * saving; at double, 38–45 ms, as with V8's own growth.
 */
export const HEAP_GROWTH_PERCENT = { batch: 10, interactive: 100 } as const;

/** What a process mostly does: deliver on its own, or answer a window. */
export type ProcessKind = keyof typeof HEAP_GROWTH_PERCENT;

/**
 * Bounds this process's heap growth (it applies from the next collection on, to the process
 * and its worker threads). Called once per process, by `createServices`.
 */
export function boundHeapGrowth(kind: ProcessKind): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWTH_PERCENT[kind]}`);
}
