/**
 * How a Courier process tunes V8 for what it mostly does: how far its heap grows, and, in a
 * batch, how much its optimizing compiler inlines.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * Growth past the live objects of the last full collection, in percent, by kind of process. V8's
 * default lets the heap reach up to four times its live objects before a full collection: a
 * delivery of 100,000 tracks, holding some 200 MB while it plans, peaked at 1 GB of RSS, most of
 * it garbage waiting. How far is a trade: each full collection pauses the event loop a little,
 * more often the tighter the bound (`npm run bench:scale` and `bench:library-save` measure both
 * sides). A
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

/**
 * Bytecode TurboFan may inline into one optimized function, in all, in a batch process (V8's
 * default: 920). A scan runs a large body of code once per file (the readers, music-metadata's
 * collector, tag mapping, the integrity checks, validation), and V8 optimizes each function that
 * turns hot on a background thread while this one runs it unoptimized. Each inlined callee is
 * compiled again into every caller that takes it: at the default, the compiles of a 5,040-file
 * `courier scan` took about 0.6 CPU s more, on the core this thread does not use, and the code ran
 * unoptimized longer. Measured on that scan in one process (`bench:scan`'s catalog, five runs of
 * each, taking turns, two cores): 920, 2.14–2.30 s (median 2.26, 3.3 CPU s); 460, median 1.98; 200, 1.97;
 * 100, 1.89–2.21 s (median 1.91, 2.7 CPU s); 50, median 2.10; no inlining at all is slower
 * again. A long-lived process (the app's, the browser host) keeps V8's default: the budget was
 * measured for the CLI's batch work only.
 */
const BATCH_INLINED_BYTECODE = 100;

/**
 * Tunes the compilers for a batch (`runAsProcess`, the CLI); process-wide, workers too. Besides
 * the inlining budget, every function is compiled to baseline code (Sparkplug) when it first
 * runs, not after V8 has interpreted it a while: a scan's code runs once per file, thousands of
 * times, and baseline code is cheap to make. In three comparisons of the same scan, taking
 * turns, it saved 1.4 %, 2 % and 6 % (medians).
 */
export function tuneCompilerForBatch(): void {
  setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${BATCH_INLINED_BYTECODE}`);
  setFlagsFromString('--always-sparkplug');
}
