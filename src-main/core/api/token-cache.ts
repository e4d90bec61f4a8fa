/** An access token as Courier keeps it: in memory only, never logged. */
export interface AccessToken {
  token: string;
  /** When this process should consider it expired, on the local clock (epoch ms). */
  expiresAt: number;
}

/** Renew when less than this share of the token's life is left, at most five minutes. */
const RENEW_SHARE = 0.1;
const RENEW_MAX_MS = 5 * 60_000;

/**
 * Holds the access token: obtained on first need, renewed ahead of expiry (a margin, not at the
 * last second), dropped after a 401, and fetched once for any number of concurrent callers.
 */
export class TokenCache {
  #current: AccessToken | null = null;
  #marginMs = 0;
  #inFlight: Promise<AccessToken> | null = null;

  constructor(
    private readonly fetchToken: () => Promise<{ token: string; lifetimeMs: number }>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token valid for a while yet; callers arriving together share one request. */
  async get(): Promise<string> {
    const current = this.#current;
    if (current && this.now() < current.expiresAt - this.#marginMs) return current.token;
    this.#inFlight ??= this.#renew().finally(() => (this.#inFlight = null));
    return (await this.#inFlight).token;
  }

  /** Forgets `token` after the service refused it, unless a newer one already replaced it. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = null;
  }

  async #renew(): Promise<AccessToken> {
    const requestedAt = this.now();
    const { token, lifetimeMs } = await this.fetchToken();
    // The lifetime, not the server's expires_at, is trusted: a skewed local clock can't make a
    // fresh token look expired (or an old one look fresh).
    this.#marginMs = Math.min(RENEW_MAX_MS, lifetimeMs * RENEW_SHARE);
    this.#current = { token, expiresAt: requestedAt + lifetimeMs };
    return this.#current;
  }
}
