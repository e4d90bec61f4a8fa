/**
 * Whether a host (the delivery bucket, the service) has answered at all in this run. A host
 * that never answered is given a bounded time before Courier says so in one line and stops
 * sending to it, instead of retrying every file on its own for minutes.
 */
import { CourierError } from '../errors.js';

/** What to tell the user to check, per kind of host. */
export type HostKind = 'bucket' | 'service';

const HINTS: Record<HostKind, string> = {
  bucket:
    "check the profile's bucket endpoint and region, and that this computer can reach it (network, VPN, proxy, firewall)",
  service:
    "check the profile's base URL, and that this computer can reach it (network, VPN, proxy, firewall)",
};

const NAMES: Record<HostKind, string> = { bucket: 'the delivery bucket', service: 'the service' };

/** A request that got no answer from the host (refused, reset, timed out): retryable. */
export class NetworkError extends CourierError {
  constructor(
    readonly kind: HostKind,
    readonly host: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      'network',
      `No answer from ${NAMES[kind]} at ${host} (${reason}); ${HINTS[kind]}.`,
      options,
    );
    this.name = 'NetworkError';
  }
}

/** The host never answered within the allowed time: every request to it now fails at once. */
export class UnreachableError extends CourierError {
  constructor(
    readonly kind: HostKind,
    readonly host: string,
    reason: string,
    seconds: number,
    options?: { cause?: unknown },
  ) {
    super(
      'unreachable',
      `Can't reach ${NAMES[kind]} at ${host}: ${reason}, no answer in ${seconds} s; ${HINTS[kind]}.`,
      options,
    );
    this.name = 'UnreachableError';
  }
}

/** A few words for why a request got no answer, from Node's, undici's or the SDK's error. */
export function networkReason(error: unknown, timeouts?: { connectMs: number; idleMs: number }) {
  const seen = new Set<unknown>();
  for (
    let e = error as { code?: string; name?: string; message?: string; cause?: unknown };
    e && typeof e === 'object' && !seen.has(e);
    e = e.cause as typeof e
  ) {
    seen.add(e);
    switch (e.code) {
      case 'ECONNREFUSED':
        return 'connection refused';
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'host name not found';
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
        return 'connection reset';
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
      case 'ENETDOWN':
        return 'network unreachable';
      case 'UND_ERR_CONNECT_TIMEOUT':
        return 'no connection within the connect timeout';
    }
    const message = e.message ?? '';
    if (/did not establish a connection/i.test(message)) {
      return timeouts ? `no connection within ${timeouts.connectMs / 1000} s` : 'no connection';
    }
    if (e.name === 'TimeoutError' || /timed? ?out/i.test(message)) {
      return timeouts ? `no answer within ${timeouts.idleMs / 1000} s` : 'timed out';
    }
  }
  const e = error as { code?: string; message?: string };
  return (e?.code ?? e?.message ?? String(error)).slice(0, 120);
}

/** One host's record of whether it has answered yet in this run. */
export class Reachability {
  #firstAttemptAt: number | undefined;
  #answered = false;
  #unreachable: UnreachableError | undefined;

  constructor(
    readonly kind: HostKind,
    readonly host: string,
    private readonly unreachableMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Set once the host was declared unreachable: requests should fail with it at once. */
  get unreachable(): UnreachableError | undefined {
    return this.#unreachable;
  }

  /** A request is about to be sent. */
  attempting(): void {
    this.#firstAttemptAt ??= this.now();
  }

  /** The host answered something (any HTTP status): it is reachable. */
  answered(): void {
    this.#answered = true;
  }

  /**
   * After a request failed without an answer: the error to stop with when the host has never
   * answered and its first request went out `unreachableMs` ago or more (or `now`, when the
   * caller has no retry left); else undefined.
   */
  giveUp(failure: NetworkError, now = false): UnreachableError | undefined {
    if (this.#unreachable) return this.#unreachable;
    if (this.#answered || this.#firstAttemptAt === undefined) return undefined;
    const silentMs = this.now() - this.#firstAttemptAt;
    if (silentMs < this.unreachableMs && !now) return undefined;
    this.#unreachable = new UnreachableError(
      this.kind,
      this.host,
      failure.reason,
      Math.round(silentMs / 1000),
      { cause: failure },
    );
    return this.#unreachable;
  }
}
