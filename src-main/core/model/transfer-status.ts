/**
 * How a running transfer's time left and pause read, in the app's Transfers view and on the
 * CLI's progress line alike. Free of Node APIs: the renderer bundles it.
 */

/** What a status line needs to know of a transfer. */
export interface TransferStatus {
  /** Seconds left, or null while the ETA is still being estimated. */
  etaSeconds: number | null;
  paused: boolean;
  /** While pausing: requests still in flight (they finish or are aborted within 1 s). */
  finishing: number;
}

/** Seconds as `1 h 02 min`, `3 min 05 s` or `12 s` (`—` when unknown). */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  if (s >= 3600)
    return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/** `ETA 3 min 05 s`, or `estimating…` until the estimator has seen enough to say. */
export function etaText(etaSeconds: number | null): string {
  return etaSeconds === null ? 'estimating…' : `ETA ${formatDuration(etaSeconds)}`;
}

/**
 * `1.2 MiB/s · ETA 1 min 05 s`, or `estimating…` alone while the ETA isn't known; bytes written
 * by the caller's own formatter (the app's and the CLI's differ).
 */
export function speedAndEta(
  progress: { bytesPerSecond: number; etaSeconds: number | null },
  bytes: (n: number) => string,
): string {
  if (progress.etaSeconds === null) return etaText(null);
  return `${bytes(progress.bytesPerSecond)}/s · ${etaText(progress.etaSeconds)}`;
}

/**
 * `pausing… (2 parts finishing)` while requests in flight wind down, `paused` once nothing is in
 * flight, or undefined when not paused.
 */
export function pauseText(
  status: Pick<TransferStatus, 'paused' | 'finishing'>,
): string | undefined {
  if (!status.paused) return undefined;
  if (status.finishing > 0) {
    return `pausing… (${status.finishing} part${status.finishing === 1 ? '' : 's'} finishing)`;
  }
  return 'paused';
}
