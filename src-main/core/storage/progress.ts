import { EtaEstimator, type EtaOptions } from './eta-estimator.js';

/** A snapshot of upload progress, as the UI and the CLI show it. */
export interface ProgressSnapshot {
  /** Bytes S3 has confirmed (parts acknowledged and journaled, or whole objects) over all files. */
  confirmedBytes: number;
  totalBytes: number;
  filesDone: number;
  filesTotal: number;
  /** Bytes this run sent and S3 confirmed, per second: an exponentially weighted average. */
  bytesPerSecond: number;
  /** Seconds left at that rate, or null while estimating (see `EtaEstimator`). */
  etaSeconds: number | null;
  /** Confirmed bytes per file key that changed since the previous snapshot. */
  files: Record<string, { confirmedBytes: number; size: number }>;
}

/** One part's id for the estimator: file keys hold no newline. */
const partId = (key: string, partNumber: number): string => `${partNumber}\n${key}`;

/**
 * Tracks confirmed bytes per file and overall, and emits throttled snapshots (at most one per
 * `intervalMs`, plus a final one on `flush()`). Throughput and ETA come from an `EtaEstimator`
 * fed with bytes S3 confirmed and the parts in flight, so neither a filling socket buffer nor a
 * burst of completions swings them.
 */
export class ProgressTracker {
  private confirmed = 0;
  private total = 0;
  private filesTotal = 0;
  private filesDone = 0;
  private readonly perFile = new Map<string, { confirmedBytes: number; size: number }>();
  private readonly changed = new Set<string>();
  private readonly eta: EtaEstimator;
  private lastEmit = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly emit: (snapshot: ProgressSnapshot) => void,
    private readonly options: { intervalMs?: number; eta?: EtaOptions; now?: () => number } = {},
  ) {
    this.eta = new EtaEstimator(options.eta);
  }

  /**
   * A request for a part (`partNumber` 1 for a whole-file PUT) starts sending `bytes`: the rate's
   * clock starts with the first, and the part is credited its time until S3 confirms or loses it.
   */
  sending(key: string, partNumber: number, bytes: number): void {
    this.eta.sending(partId(key, partNumber), bytes, this.now());
  }

  /**
   * A paced body handed `bytes` more of a part on (only with a bandwidth limit): they bound the
   * part's credit, which its time alone could overstate.
   */
  handed(key: string, partNumber: number, bytes: number): void {
    this.eta.handed(partId(key, partNumber), bytes);
  }

  /** A part's request ended without S3 confirming it (failed, aborted): its credit goes. */
  lost(key: string, partNumber: number): void {
    this.eta.lost(partId(key, partNumber), this.now());
  }

  /** The run is paused (nothing in flight): time stops counting towards the rate. */
  pause(): void {
    this.eta.pause(this.now());
  }

  /** The run continues after `pause()`. */
  resume(): void {
    this.eta.resume(this.now());
  }

  /** Registers a file and its size before any bytes are counted. */
  addFile(key: string, size: number): void {
    if (this.perFile.has(key)) return;
    this.perFile.set(key, { confirmedBytes: 0, size });
    this.total += size;
    this.filesTotal++;
    this.changed.add(key);
  }

  /**
   * Counts bytes S3 confirmed for a file after this run sent them as part `partNumber` (negative,
   * without a part, only to take back a failed part). They make the throughput.
   */
  confirm(key: string, bytes: number, partNumber?: number): void {
    if (this.count(key, bytes)) {
      const part = partNumber === undefined ? undefined : partId(key, partNumber);
      this.eta.confirmed(bytes, this.now(), part);
    }
  }

  /**
   * Counts bytes the bucket held before this run sent anything (a file already there, parts
   * resumed from an earlier run): progress, but not throughput, so neither the ETA nor the
   * single-PUT limit takes a resumed run's head start for link speed.
   */
  known(key: string, bytes: number): void {
    this.count(key, bytes);
  }

  private count(key: string, bytes: number): boolean {
    const file = this.perFile.get(key);
    if (!file || bytes === 0) return false;
    file.confirmedBytes += bytes;
    this.confirmed += bytes;
    this.changed.add(key);
    this.schedule();
    return true;
  }

  /** Marks a file finished (uploaded, skipped or failed) for the files counter. */
  fileDone(key: string): void {
    this.filesDone++;
    this.changed.add(key);
    this.schedule();
  }

  /** Emits a snapshot now and stops the timer (end of run). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.emitNow();
  }

  /** The current figures, without the per-file detail. */
  snapshot(): ProgressSnapshot {
    const { bytesPerSecond, etaSeconds } = this.eta.estimate(
      this.total - this.confirmed,
      this.now(),
    );
    const files: ProgressSnapshot['files'] = {};
    for (const key of this.changed) files[key] = { ...this.perFile.get(key)! };
    return {
      confirmedBytes: this.confirmed,
      totalBytes: this.total,
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      bytesPerSecond: Math.round(bytesPerSecond),
      etaSeconds,
      files,
    };
  }

  /** Confirmed bytes per second sent by this run, as the estimator sees it; 0 until known. */
  bytesPerSecond(): number {
    return this.eta.estimate(this.total - this.confirmed, this.now()).bytesPerSecond;
  }

  private now(): number {
    return (this.options.now ?? (() => performance.now()))();
  }

  private schedule(): void {
    if (this.timer) return;
    const interval = this.options.intervalMs ?? 100;
    const wait = Math.max(0, this.lastEmit + interval - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.emitNow();
    }, wait);
    this.timer.unref?.();
  }

  private emitNow(): void {
    this.lastEmit = this.now();
    const snapshot = this.snapshot();
    this.changed.clear();
    this.emit(snapshot);
  }
}
