/**
 * Pause for an upload run, in three states: running → pausing → paused.
 *
 * On `pause()` no request starts any more (a part waiting for a slot, for bandwidth tokens, or
 * being read and hashed goes back to wait). Requests already sending get `graceMs` to finish: a
 * part that lands in that time is confirmed and journaled as usual. Whatever is still sending then
 * is aborted; its bytes are lost and it is sent again from its first byte on resume (a multipart
 * part: the upload and its journaled parts stay; a single PUT: the whole file). Once nothing is in
 * flight the run is `paused` — no byte leaves after that.
 */

/** Where a run stands; `finishing` counts the requests still in flight since the pause. */
export type PauseState =
  { state: 'running' } | { state: 'pausing'; finishing: number } | { state: 'paused' };

/** The reason a request was aborted by a pause (it is sent again on resume, not failed). */
export class PausedRequest extends Error {
  constructor() {
    super('Paused; sent again on resume.');
    this.name = 'AbortError';
  }
}

/** A request in flight: the signal to send it with, and `close()` once it settled. */
export interface Flight {
  signal: AbortSignal;
  /** True when the pause aborted it: send it again after `whenRunning()`. */
  readonly pausedOut: boolean;
  close(): void;
}

/** How long requests in flight may take to finish after a pause, in ms. */
export const PAUSE_GRACE_MS = 750;

/** The pause of one run: gates new requests and winds down those in flight. */
export class TransferPause {
  #state: PauseState = { state: 'running' };
  #gate: { promise: Promise<void>; open: () => void } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #flights = new Set<{ controller: AbortController; pausedOut: boolean }>();

  constructor(
    private readonly onChange: (state: PauseState) => void,
    private readonly graceMs = PAUSE_GRACE_MS,
  ) {}

  /** running, pausing (with the requests finishing) or paused. */
  get state(): PauseState {
    return this.#state;
  }

  /** True from `pause()` until `resume()`. */
  get paused(): boolean {
    return this.#gate !== undefined;
  }

  /** Stops new requests, gives those in flight `graceMs`, then aborts the rest. */
  pause(): void {
    if (this.#gate) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.#gate = { promise, open };
    if (this.#flights.size === 0) {
      this.#set({ state: 'paused' });
      return;
    }
    this.#set({ state: 'pausing', finishing: this.#flights.size });
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      for (const flight of this.#flights) {
        flight.pausedOut = true;
        flight.controller.abort(new PausedRequest());
      }
    }, this.graceMs);
    this.#timer.unref?.();
  }

  /** Lets requests start again. */
  resume(): void {
    if (!this.#gate) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#gate.open();
    this.#gate = undefined;
    this.#set({ state: 'running' });
  }

  /** Opens the gate for good, without a state change (a cancel must not stay stuck at it). */
  release(): void {
    this.#gate?.open();
  }

  /** Resolves when requests may start. */
  whenRunning(): Promise<void> {
    return this.#gate?.promise ?? Promise.resolve();
  }

  /**
   * Registers a request about to send, or returns undefined when the run is paused (the caller
   * waits and tries again). The flight's signal also follows `signal` (cancel, a failed part).
   */
  open(signal: AbortSignal): Flight | undefined {
    if (this.#gate) return undefined;
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const entry = { controller, pausedOut: false };
    this.#flights.add(entry);
    return {
      signal: controller.signal,
      get pausedOut() {
        return entry.pausedOut;
      },
      close: () => {
        signal.removeEventListener('abort', onAbort);
        if (!this.#flights.delete(entry)) return;
        if (this.#state.state !== 'pausing') return;
        const finishing = this.#flights.size;
        this.#set(finishing === 0 ? { state: 'paused' } : { state: 'pausing', finishing });
      },
    };
  }

  #set(state: PauseState): void {
    this.#state = state;
    if (state.state === 'paused' && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.onChange(state);
  }
}
