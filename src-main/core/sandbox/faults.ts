/** Fault injection for client tests: a share of API requests fail or answer slowly. */
export interface FaultSettings {
  /** Share (0..1) of requests answered 500. */
  errorRate: number;
  /** Share (0..1) of requests answered 429 with Retry-After. */
  throttleRate: number;
  /** Share (0..1) of requests delayed by `slowMs` before being handled. */
  slowRate: number;
  slowMs: number;
}

/** No faults: the default. */
export const NO_FAULTS: FaultSettings = {
  errorRate: 0,
  throttleRate: 0,
  slowRate: 0,
  slowMs: 2000,
};

/** The fault decided for one request. */
export type Fault =
  { kind: 'error' } | { kind: 'throttle' } | { kind: 'slow'; ms: number } | undefined;

/** Draws the fault for one request; `random` is injectable so tests can be exact. */
export function drawFault(settings: FaultSettings, random: () => number = Math.random): Fault {
  if (settings.errorRate > 0 && random() < settings.errorRate) return { kind: 'error' };
  if (settings.throttleRate > 0 && random() < settings.throttleRate) return { kind: 'throttle' };
  if (settings.slowRate > 0 && random() < settings.slowRate)
    return { kind: 'slow', ms: settings.slowMs };
  return undefined;
}

/** Reads fault settings from COURIER_SANDBOX_* environment variables over a base. */
export function faultsFromEnv(
  env: NodeJS.ProcessEnv,
  base: FaultSettings = NO_FAULTS,
): FaultSettings {
  const share = (name: string, fallback: number) => {
    const value = env[name] === undefined || env[name] === '' ? NaN : Number(env[name]);
    return Number.isFinite(value) && value >= 0 && value <= 1 ? value : fallback;
  };
  const slowMs = Number(env.COURIER_SANDBOX_SLOW_MS);
  return {
    errorRate: share('COURIER_SANDBOX_FAULT_500', base.errorRate),
    throttleRate: share('COURIER_SANDBOX_FAULT_429', base.throttleRate),
    slowRate: share('COURIER_SANDBOX_FAULT_SLOW', base.slowRate),
    slowMs: Number.isFinite(slowMs) && slowMs >= 0 ? slowMs : base.slowMs,
  };
}
