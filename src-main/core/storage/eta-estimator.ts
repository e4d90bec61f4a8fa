/**
 * The upload's speed and time left, from bytes S3 confirmed (a part acknowledged, an object
 * stored) — never from bytes handed to the socket, which run ahead while the OS's send buffer
 * fills at the start and then stall.
 *
 * The rate is an exponentially weighted average: each confirmation brings its bytes and the
 * sending time since the previous one, and older pairs weigh less (their weight falls by e every
 * `timeConstantMs` of sending). Until about one time constant has passed that is simply "bytes
 * confirmed / time spent sending", so the first figure is an honest average rather than the speed
 * of the first lucky part; later it follows a link that gets slower or faster. Bytes and time are
 * weighed together, so a round of parts that all land at once (and the wait before it) counts at
 * its true rate: bursts don't swing it.
 *
 * The time constant grows to four times the longest recent wait between rounds, so a slow link
 * whose parts land once a minute is still averaged over several rounds.
 *
 * Between confirmations the ETA counts down; when the wait grows well past the longest gap
 * seen lately, the wait itself joins the average (the link stalled) and the ETA grows. Time while
 * paused counts for nothing. Pure: the caller passes the clock.
 */
export interface EtaEstimate {
  /** Confirmed bytes per second (0 until anything was confirmed). */
  bytesPerSecond: number;
  /** Seconds left, or null while estimating (too little seen to say). */
  etaSeconds: number | null;
}

/** How the estimator weighs the past and when it starts to answer. */
export interface EtaOptions {
  /** A confirmation's weight falls by e every this much sending time (default 30 s). */
  timeConstantMs?: number;
  /** No ETA before this much sending time (default 3 s). */
  warmUpMs?: number;
  /** No ETA before this many confirmations (default 2). */
  minConfirmations?: number;
  /**
   * Confirmations are taken in this long after they land (default 1 s), so a round of parts
   * landing together counts as one lump rather than first as a long wait for one part.
   */
  coalesceMs?: number;
}

/** How many recent gaps between confirmations say what a normal wait is. */
const GAPS_KEPT = 64;
/** A wait this many times the longest recent gap is a stall, not jitter. */
const STALL_FACTOR = 1.5;
/** The weight's time constant is at least this many times the longest recent gap. */
const GAPS_PER_TIME_CONSTANT = 4;

/** An exponentially weighted confirmed-bytes rate, and the ETA it gives. */
export class EtaEstimator {
  readonly #tau: number;
  readonly #warmUpMs: number;
  readonly #minConfirmations: number;
  readonly #coalesceMs: number;
  /** Weighted confirmed bytes and weighted sending time (ms), as of the last confirmation taken in. */
  #bytes = 0;
  #time = 0;
  /** Sending time (ms) so far: the clock that stops while paused. */
  #active = 0;
  /** Wall time the active clock last caught up with; undefined before the first byte. */
  #wall: number | undefined;
  #paused = false;
  /** Active time of the last confirmation taken in. */
  #lastAt = 0;
  #confirmations = 0;
  readonly #gaps: number[] = [];
  /** Confirmations younger than the coalescing window, not taken in yet (active time, bytes). */
  readonly #pending: Array<{ at: number; bytes: number }> = [];

  constructor(options: EtaOptions = {}) {
    this.#tau = options.timeConstantMs ?? 30_000;
    this.#warmUpMs = options.warmUpMs ?? 3_000;
    this.#minConfirmations = options.minConfirmations ?? 2;
    this.#coalesceMs = options.coalesceMs ?? 1_000;
  }

  /** Starts the clock when the first byte is handed to the network (later calls do nothing). */
  start(now: number): void {
    if (this.#wall === undefined) this.#wall = now;
  }

  /** Counts bytes S3 confirmed that this run sent (negative to take back a lost part's). */
  confirmed(bytes: number, now: number): void {
    this.start(now);
    this.#tick(now);
    if (bytes < 0) {
      this.#bytes = Math.max(0, this.#bytes + bytes);
      return;
    }
    this.#pending.push({ at: this.#active, bytes });
    this.#confirmations++;
  }

  /** Stops the clock: a pause neither lowers the rate nor lifts the ETA. */
  pause(now: number): void {
    this.#tick(now);
    this.#paused = true;
  }

  /** Restarts the clock after `pause()`. */
  resume(now: number): void {
    this.#tick(now);
    this.#paused = false;
  }

  /** The rate now and the time `remainingBytes` take at it. */
  estimate(remainingBytes: number, now: number): EtaEstimate {
    this.#tick(now);
    const newest = this.#pending.at(-1)?.at;
    const oldest = this.#pending[0]?.at;
    // A round of parts is taken in once it has all landed (nothing new for a window), or once
    // confirmations have kept coming for several windows (a steady stream has no rounds).
    if (
      newest !== undefined &&
      (this.#active - newest > this.#coalesceMs || this.#active - oldest! > 4 * this.#coalesceMs)
    ) {
      for (const confirmation of this.#pending.splice(0)) this.#takeIn(confirmation);
    }
    const notTakenIn = this.#pending.reduce((n, c) => n + c.bytes, 0);
    const wait = this.#active - this.#lastAt;
    // A wait well past every recent gap is a stall: it weighs in like a confirmation of nothing.
    const stalled = this.#pending.length === 0 && wait > STALL_FACTOR * Math.max(0, ...this.#gaps);
    // Before a round is taken in, the plain average of what has landed (the link probe needs it).
    const fresh = this.#time === 0;
    const weight = stalled ? Math.exp(-wait / this.#timeConstant()) : 1;
    const bytes = fresh ? notTakenIn : this.#bytes * weight;
    const time = fresh ? this.#active : stalled ? this.#time * weight + wait : this.#time;
    const rate = time > 0 ? (bytes / time) * 1000 : 0;
    if (remainingBytes <= 0) return { bytesPerSecond: rate, etaSeconds: 0 };
    const ready =
      this.#active >= this.#warmUpMs && this.#confirmations >= this.#minConfirmations && rate > 0;
    if (!ready) return { bytesPerSecond: rate, etaSeconds: null };
    // Counted down from the last confirmation taken in, for the bytes left as of then.
    const left = fresh
      ? (remainingBytes / rate) * 1000
      : ((remainingBytes + notTakenIn) / rate) * 1000 - (stalled ? 0 : wait);
    return { bytesPerSecond: rate, etaSeconds: Math.max(1, Math.ceil(left / 1000)) };
  }

  #takeIn({ at, bytes }: { at: number; bytes: number }): void {
    const gap = at - this.#lastAt;
    const weight = Math.exp(-gap / this.#timeConstant());
    this.#bytes = this.#bytes * weight + bytes;
    this.#time = this.#time * weight + gap;
    this.#lastAt = at;
    this.#gaps.push(gap);
    if (this.#gaps.length > GAPS_KEPT) this.#gaps.shift();
  }

  /** Long enough to span several rounds of parts, so a round's lump never dominates. */
  #timeConstant(): number {
    return Math.max(this.#tau, GAPS_PER_TIME_CONSTANT * Math.max(0, ...this.#gaps));
  }

  #tick(now: number): void {
    if (this.#wall === undefined) return;
    if (!this.#paused) this.#active += Math.max(0, now - this.#wall);
    this.#wall = now;
  }
}
