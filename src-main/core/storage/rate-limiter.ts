import { Readable } from 'node:stream';

import { sleep } from './retry.js';

/** Bytes paced at a time: small enough that the wire follows the limit within milliseconds. */
const PACE_CHUNK = 64 * 1024;

/**
 * A token bucket of bytes per second shared by every transfer (the optional bandwidth limit).
 * It starts empty, so a run keeps to the limit from its first byte (a full bucket would let a
 * second's worth through at once, and the first parts would land at no real speed of the link);
 * after an idle spell, bursts are capped at one second's worth so it doesn't allow a flood. Request
 * bodies are paced through it in 64 KiB pieces (`paced`), so the bytes leave at the limit rather
 * than a whole part at link speed after a wait: a paused or stopped request stops on the wire.
 */
export class RateLimiter {
  private tokens = 0;
  /** When the bucket was last refilled; undefined until the first byte asks (it starts empty). */
  private last: number | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly bytesPerSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(bytesPerSecond > 0)) throw new RangeError('The bandwidth limit must be positive.');
  }

  /** Resolves once `bytes` may be sent; callers are served in order. */
  take(bytes: number, signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(async () => {
      signal?.throwIfAborted();
      this.refill();
      this.tokens -= bytes;
      if (this.tokens < 0) {
        try {
          await sleep((-this.tokens / this.bytesPerSecond) * 1000, signal);
        } catch (error) {
          this.tokens += bytes; // never sent: the next caller may have them
          throw error;
        }
      }
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(
      this.bytesPerSecond,
      this.tokens + ((now - (this.last ?? now)) / 1000) * this.bytesPerSecond,
    );
    this.last = now;
  }
}

/**
 * A request body that leaves no faster than `limiter` allows, piece by piece; aborting `signal`
 * ends it at once. `source` is the part's bytes or a file stream; `handed` hears each piece's
 * length as it is handed on.
 */
export function paced(
  source: Uint8Array | AsyncIterable<Uint8Array>,
  limiter: RateLimiter,
  signal: AbortSignal,
  handed?: (bytes: number) => void,
): Readable {
  const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
    source instanceof Uint8Array ? [source] : source;
  const body = Readable.from(
    (async function* () {
      for await (const chunk of chunks) {
        for (let at = 0; at < chunk.length; at += PACE_CHUNK) {
          const piece = chunk.subarray(at, at + PACE_CHUNK);
          await limiter.take(piece.length, signal);
          handed?.(piece.length);
          yield piece;
        }
      }
    })(),
    { objectMode: false, highWaterMark: PACE_CHUNK },
  );
  // An abort ends the request, and the request reports it; the body's own error is the same news.
  body.on('error', () => undefined);
  return body;
}
