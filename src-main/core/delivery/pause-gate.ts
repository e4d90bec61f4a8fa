/**
 * Pausing between ingestion requests. A request in flight is never abandoned (its answer decides
 * whether the batch is accepted), so a pause during the ingest step takes effect after that
 * request's answer is recorded, and the run continues with the next unsent batch on resume.
 */
export class PauseGate {
  #closed: { promise: Promise<void>; open: () => void } | undefined;
  #waiting = 0;
  readonly #onWait?: () => void;

  /** `onWait` is told each time the run stops at the gate (a door shows it, a test waits for it). */
  constructor(options: { onWait?: () => void } = {}) {
    this.#onWait = options.onWait;
  }

  get paused(): boolean {
    return this.#closed !== undefined;
  }

  /** Whether a run is stopped at the gate right now. */
  get waiting(): boolean {
    return this.#waiting > 0;
  }

  pause(): void {
    if (this.#closed) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.#closed = { promise, open };
  }

  /** Opens the gate (resume, or a cancel that must not stay stuck at it). */
  resume(): void {
    this.#closed?.open();
    this.#closed = undefined;
  }

  /** Resolves at once when not paused, otherwise once `resume()` is called. */
  async whenOpen(): Promise<void> {
    const closed = this.#closed;
    if (!closed) return;
    this.#waiting++;
    this.#onWait?.();
    try {
      await closed.promise;
    } finally {
      this.#waiting--;
    }
  }
}
