/**
 * The upload's speed and time left, from bytes S3 confirmed (a part acknowledged, an object
 * stored) plus a bounded credit for the parts still in flight — never from bytes handed to the
 * socket, which run ahead while the OS's send buffer fills at the start and then stall.
 *
 * Progress is what S3 confirmed plus what the parts in flight have probably sent: each is
 * credited the time it has been sending times the speed of one part, learned from the parts
 * that were confirmed lately (their bytes over the time from their start to their confirmation,
 * which includes the latency and cannot be fooled by a socket buffer), and never more than
 * `IN_FLIGHT_CAP` of its bytes before S3 confirms it, nor more than its body handed on where
 * that is counted (a paced body, with a bandwidth limit: the parts that land first are the ones
 * that got more than their share of the link, so their speed alone would overstate the others). Without that credit, a run whose parts in
 * flight are a large share of it (8 parts of 8 MiB in a 100 MiB delivery) would look slow at
 * first — its first confirmations come after a whole part's time, while every part was sending —
 * and would count the bytes those parts already sent as still to send.
 *
 * The rate is an exponentially weighted average: each confirmation brings the progress and the
 * sending time since the previous one, and older pairs weigh less (their weight falls by e every
 * `timeConstantMs` of sending). Until about one time constant has passed that is simply
 * "progress / time spent sending", so the first figure is an honest average rather than the
 * speed of the first lucky part; later it follows a link that gets slower or faster. Bytes and
 * time are weighed together, so a round of parts that all land at once (and the wait before it)
 * counts at its true rate: bursts don't swing it.
 *
 * The time constant grows to four times the longest recent wait between rounds, so a slow link
 * whose parts land once a minute is still averaged over several rounds.
 *
 * Between confirmations the ETA counts down; when the wait grows well past the longest gap
 * seen lately, the wait itself joins the average (the link stalled) and the ETA grows. Time while
 * paused counts for nothing, for the rate and for the parts in flight. Pure: the caller passes
 * the clock.
 */
export interface EtaEstimate {
  /** Bytes per second sent and confirmed (0 until anything was confirmed). */
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
/** How many recently confirmed parts say how fast one part goes. */
const PARTS_KEPT = 16;
/** A part in flight is credited at most this share of its bytes before S3 confirms it. */
const IN_FLIGHT_CAP = 0.9;

/** A part in flight: its bytes, the sending time it has had (ms), the bytes its body handed on. */
interface Sending {
  bytes: number;
  ms: number;
  handed?: number;
}

/** A confirmation not taken in yet (see `EtaEstimator.confirmed`). */
interface Pending {
  at: number;
  bytes: number;
  progress: number;
  credit: number;
}

/** An exponentially weighted rate of confirmed (and credited) bytes, and the ETA it gives. */
export class EtaEstimator {
  readonly #tau: number;
  readonly #warmUpMs: number;
  readonly #minConfirmations: number;
  readonly #coalesceMs: number;
  /** Weighted progress and weighted sending time (ms), as of the last confirmation taken in. */
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
  /**
   * Confirmations younger than the coalescing window, not taken in yet: active time, bytes
   * confirmed, progress since the confirmation before (see `confirmed`), and the credit of the
   * parts then in flight.
   */
  readonly #pending: Pending[] = [];
  /** Bytes this run sent that S3 confirmed. */
  #confirmed = 0;
  /** The parts in flight at the last confirmation, and their credit then. */
  #sendingConfirmed: Sending[] = [];
  #creditConfirmed = 0;
  /** The credit of the parts in flight at the last confirmation taken in. */
  #creditTakenIn = 0;
  /**
   * Parts in flight: their bytes, the active time they started at, and how many bytes their
   * body has handed on, where it counts them.
   */
  readonly #inFlight = new Map<string, { bytes: number; at: number; handed?: number }>();
  /** Recently confirmed parts: bytes and sending time (ms) from start to confirmation. */
  readonly #parts: Array<{ bytes: number; ms: number }> = [];

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

  /**
   * A request for `part` (any id unique among those in flight) starts sending `bytes`; sending
   * it again after a failure starts it afresh.
   */
  sending(part: string, bytes: number, now: number): void {
    this.start(now);
    this.#tick(now);
    this.#inFlight.set(part, { bytes, at: this.#active });
  }

  /**
   * The body of `part` handed `bytes` more on (a paced body counts them): an upper bound for its
   * credit — a lucky first part can't make the others look further along than they are. Not the
   * measure itself: bytes handed on may still sit in a socket buffer.
   */
  handed(part: string, bytes: number): void {
    const sending = this.#inFlight.get(part);
    if (sending) sending.handed = (sending.handed ?? 0) + bytes;
  }

  /** A request ended without S3 confirming its bytes (failed, aborted): its credit goes. */
  lost(part: string, now: number): void {
    this.#tick(now);
    this.#inFlight.delete(part);
  }

  /**
   * Counts bytes S3 confirmed that this run sent (negative to take back a lost part's); `part`
   * names the request that sent them, whose time teaches how fast one part goes.
   */
  confirmed(bytes: number, now: number, part?: string): void {
    this.start(now);
    this.#tick(now);
    if (bytes < 0) {
      this.#bytes = Math.max(0, this.#bytes + bytes);
      this.#confirmed += bytes;
      return;
    }
    const sent = part === undefined ? undefined : this.#inFlight.get(part);
    const speed = this.#partSpeed();
    if (sent) {
      this.#inFlight.delete(part!);
      this.#parts.push({ bytes: sent.bytes, ms: this.#active - sent.at });
      if (this.#parts.length > PARTS_KEPT) this.#parts.shift();
    }
    const learned = this.#partSpeed();
    // The progress since the confirmation before, with one part speed at both ends: what this
    // part teaches re-prices the credit of every part in flight, and that is no progress made
    // in the meantime. (The first part that lands prices both ends: before it, nothing did.)
    const then = speed ?? learned;
    const sending = this.#sending();
    const progress = Math.max(
      0,
      bytes + this.#credit(then, sending) - this.#credit(then, this.#sendingConfirmed),
    );
    this.#confirmed += bytes;
    this.#sendingConfirmed = sending;
    this.#creditConfirmed = this.#credit(learned, sending);
    this.#pending.push({ at: this.#active, bytes, progress, credit: this.#creditConfirmed });
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

  /** The rate now and the time `remainingBytes` (not yet confirmed) take at it. */
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
    const credit = this.#credit(this.#partSpeed(), this.#sending());
    const notTakenIn = this.#pending.reduce((n, c) => n + c.bytes, 0);
    const wait = this.#active - this.#lastAt;
    // A wait well past every recent gap is a stall: it weighs in like a confirmation of nothing.
    const stalled = this.#pending.length === 0 && wait > STALL_FACTOR * Math.max(0, ...this.#gaps);
    // Before a round is taken in, the plain average of the progress so far (the link probe
    // needs it).
    const fresh = this.#time === 0;
    const weight = stalled ? Math.exp(-wait / this.#timeConstant()) : 1;
    const bytes = fresh ? this.#confirmed + credit : this.#bytes * weight;
    const time = fresh ? this.#active : stalled ? this.#time * weight + wait : this.#time;
    const rate = time > 0 ? (bytes / time) * 1000 : 0;
    if (remainingBytes <= 0) return { bytesPerSecond: rate, etaSeconds: 0 };
    const ready =
      this.#active >= this.#warmUpMs && this.#confirmations >= this.#minConfirmations && rate > 0;
    if (!ready) return { bytesPerSecond: rate, etaSeconds: null };
    // Counted down from the last confirmation taken in, for the bytes left as of then.
    const left = fresh
      ? (Math.max(0, remainingBytes - credit) / rate) * 1000
      : (Math.max(0, remainingBytes + notTakenIn - this.#creditTakenIn) / rate) * 1000 -
        (stalled ? 0 : wait);
    // To the nearest second: rounding up would add half a second on average to a short run.
    return { bytesPerSecond: rate, etaSeconds: Math.max(1, Math.round(left / 1000)) };
  }

  /** A confirmation joins the average: the progress since the one before, and the time. */
  #takeIn({ at, progress, credit }: Pending): void {
    const gap = at - this.#lastAt;
    const weight = Math.exp(-gap / this.#timeConstant());
    this.#bytes = this.#bytes * weight + progress;
    this.#time = this.#time * weight + gap;
    this.#lastAt = at;
    this.#creditTakenIn = credit;
    this.#gaps.push(gap);
    if (this.#gaps.length > GAPS_KEPT) this.#gaps.shift();
  }

  /** How fast one part goes (bytes per ms), from the parts confirmed lately; undefined before. */
  #partSpeed(): number | undefined {
    let bytes = 0;
    let ms = 0;
    for (const part of this.#parts) {
      bytes += part.bytes;
      ms += part.ms;
    }
    return bytes > 0 && ms > 0 ? bytes / ms : undefined;
  }

  /** The parts in flight now: their bytes, time spent sending, and bytes handed on. */
  #sending(): Sending[] {
    return [...this.#inFlight.values()].map((part) => ({
      bytes: part.bytes,
      ms: this.#active - part.at,
      handed: part.handed,
    }));
  }

  /**
   * What parts in flight have probably sent: their time at one part's speed, never more than
   * their body handed on, nor than `IN_FLIGHT_CAP` of their bytes.
   */
  #credit(speed: number | undefined, sending: Sending[]): number {
    if (speed === undefined) return 0;
    let credit = 0;
    for (const part of sending) {
      credit += Math.min(IN_FLIGHT_CAP * part.bytes, part.handed ?? Infinity, part.ms * speed);
    }
    return credit;
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
