/**
 * How long Courier waits on the network, in one place: the S3 client, the uploader's retries
 * and the service client all read these. docs/timeouts.md explains the bounds they give.
 */

/** Network time limits, in ms. */
export interface NetworkTimeouts {
  /** A TCP (and TLS) connection not established within this is dropped. */
  connectMs: number;
  /**
   * A request whose connection carries no bytes either way for this long is dropped and retried
   * (S3); an API call with no complete answer within this is dropped and retried.
   */
  idleMs: number;
  /**
   * A host that has not answered a single request this long after the first one was sent is
   * reported unreachable: nothing more is sent to it in this run.
   */
  unreachableMs: number;
  /** A request is not retried once this long has passed since its first attempt. */
  retryBudgetMs: number;
  /**
   * One file's requests together: once its failed attempts and the waits between them add up to
   * this long, the file fails (a file whose every part needs retries cannot go on for hours).
   */
  fileRetryBudgetMs: number;
}

/** The production defaults: an unreachable host is reported within 30 s. */
export const DEFAULT_TIMEOUTS: NetworkTimeouts = {
  connectMs: 10_000,
  idleMs: 20_000,
  unreachableMs: 15_000,
  retryBudgetMs: 60_000,
  fileRetryBudgetMs: 180_000,
};

const ENV_KEYS: Record<string, keyof NetworkTimeouts> = {
  connect: 'connectMs',
  idle: 'idleMs',
  unreachable: 'unreachableMs',
  retry: 'retryBudgetMs',
  'file-retry': 'fileRetryBudgetMs',
};

/**
 * The timeouts `COURIER_NETWORK_TIMEOUTS` sets, e.g. `connect=2000,idle=2000,retry=10000`
 * (ms; tests and troubleshooting). Unknown names and non-positive values are ignored.
 */
export function timeoutsFromEnv(env: NodeJS.ProcessEnv): Partial<NetworkTimeouts> {
  const out: Partial<NetworkTimeouts> = {};
  for (const pair of (env.COURIER_NETWORK_TIMEOUTS ?? '').split(',')) {
    const [name, value] = pair.split('=').map((s) => s.trim());
    const key = ENV_KEYS[name ?? ''];
    const ms = Number(value);
    if (key && Number.isFinite(ms) && ms > 0) out[key] = ms;
  }
  return out;
}

/** The defaults overridden by every defined field of each layer, left to right. */
export function resolveTimeouts(
  ...layers: (Partial<NetworkTimeouts> | undefined)[]
): NetworkTimeouts {
  const out = { ...DEFAULT_TIMEOUTS };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      if (typeof value === 'number' && value > 0) out[key as keyof NetworkTimeouts] = value;
    }
  }
  return out;
}
