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

/** TLS codes that mean the host's certificate can't be trusted, and what to say of each. */
const TLS_REASONS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'UNTRUSTED',
  UNABLE_TO_GET_ISSUER_CERT: 'UNTRUSTED',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'UNTRUSTED',
  SELF_SIGNED_CERT_IN_CHAIN: 'UNTRUSTED',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'UNTRUSTED',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: "its certificate isn't valid yet (check this computer's clock)",
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
};

/** Why the host's certificate was refused, when that is why a request failed. */
export function certificateProblem(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (
    let e = error as { code?: string; cause?: unknown };
    e && typeof e === 'object' && !seen.has(e);
    e = e.cause as typeof e
  ) {
    seen.add(e);
    const reason = e.code ? TLS_REASONS[e.code] : undefined;
    if (reason) return reason === 'UNTRUSTED' ? UNTRUSTED : reason;
  }
  return undefined;
}

/**
 * A proxy that refused to open the tunnel (undici: "Proxy response (407) !== 200 when HTTP
 * Tunneling"): what to tell the user, or undefined when the failure was something else.
 */
export function proxyRefusal(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (
    let e = error as { message?: string; cause?: unknown };
    e && typeof e === 'object' && !seen.has(e);
    e = e.cause as typeof e
  ) {
    seen.add(e);
    const status = /Proxy response \((\d{3})\)/.exec(e.message ?? '')?.[1];
    if (status) return proxyStatusReason(Number(status));
  }
  return undefined;
}

/** What a proxy's refusal status means for the user. */
export function proxyStatusReason(status: number): string {
  if (status === 407) {
    return 'the proxy asks for credentials (407): give them in the proxy address, http://user:password@host:port';
  }
  return `the proxy refused to connect to it (${status})`;
}

/** The host answered with a certificate Courier won't trust: not retried, said in one line. */
export class CertificateError extends CourierError {
  constructor(
    readonly kind: HostKind,
    readonly host: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('untrusted', `Can't trust ${NAMES[kind]} at ${host}: ${reason}.`, options);
    this.name = 'CertificateError';
  }
}

/** The proxy in the way refused the request (credentials, policy): not retried, one line. */
export class ProxyRefusedError extends CourierError {
  constructor(
    readonly kind: HostKind,
    readonly host: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('proxy', `Can't reach ${NAMES[kind]} at ${host}: ${reason}.`, options);
    this.name = 'ProxyRefusedError';
  }
}

/** How long the host stayed silent, unless the reason already says so. */
function silence(reason: string, seconds: number): string {
  return seconds >= 1 && !reason.startsWith('no answer') ? `; no answer for ${seconds} s` : '';
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
      `Can't reach ${NAMES[kind]} at ${host} (${reason}${silence(reason, seconds)}): ${HINTS[kind]}.`,
      options,
    );
    this.name = 'UnreachableError';
  }
}

/**
 * A certificate no trusted CA signed: at an office, usually a TLS-inspecting gateway whose CA
 * the company installs in the OS store; tls-trust.ts reads that store and NODE_EXTRA_CA_CERTS.
 */
const UNTRUSTED =
  "its certificate is not trusted by this computer: if your network inspects TLS, add the gateway's CA to the system's certificates or name its file in NODE_EXTRA_CA_CERTS";

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
    const tls = certificateProblem(e);
    if (tls) return tls;
    const message = e.message ?? '';
    if (/did not establish a connection/i.test(message)) {
      return timeouts ? `no connection within ${timeouts.connectMs / 1000} s` : 'no connection';
    }
    if (e.name === 'TimeoutError' || /timed? ?out/i.test(message)) {
      return timeouts ? `no answer within ${timeouts.idleMs / 1000} s` : 'timed out';
    }
  }
  // Otherwise the innermost cause says most ("bad port" rather than undici's "fetch failed").
  let inner = error as { code?: string; message?: string; cause?: unknown } | undefined;
  for (let depth = 0; inner?.cause && typeof inner.cause === 'object' && depth < 5; depth++) {
    inner = inner.cause as typeof inner;
  }
  return (inner?.code ?? inner?.message ?? String(error)).slice(0, 120);
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

  /**
   * Until the host first answers: when it will be declared unreachable (epoch ms), so a request
   * that is still waiting then can stop waiting. Undefined once it has answered.
   */
  deadline(): number | undefined {
    if (this.#answered) return undefined;
    return (this.#firstAttemptAt ?? this.now()) + this.unreachableMs;
  }

  /** The host answered something (any HTTP status): it is reachable. */
  answered(): void {
    this.#answered = true;
  }

  /**
   * After a request failed without an answer, and before the caller retries it at `retryAt`
   * (epoch ms; Infinity when it has no retry left): the error to stop with when the host has
   * never answered and would still be silent `unreachableMs` after its first request; else
   * undefined. Deciding before the backoff, not after it, keeps the report within the bound.
   */
  giveUp(failure: NetworkError, retryAt: number): UnreachableError | undefined {
    if (this.#unreachable) return this.#unreachable;
    if (this.#answered || this.#firstAttemptAt === undefined) return undefined;
    if (retryAt - this.#firstAttemptAt < this.unreachableMs) return undefined;
    const silentMs = this.now() - this.#firstAttemptAt;
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
