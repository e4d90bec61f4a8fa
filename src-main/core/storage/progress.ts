/** A snapshot of upload progress, as the UI and the CLI show it. */
export interface ProgressSnapshot {
  /** Bytes S3 has confirmed (parts acknowledged and journaled, or whole objects) over all files. */
  confirmedBytes: number;
  totalBytes: number;
  filesDone: number;
  filesTotal: number;
  /** Bytes this run sent and S3 confirmed, per second: a moving average over the last few seconds. */
  bytesPerSecond: number;
  /** Seconds left at the current rate, or null while the rate is unknown. */
  etaSeconds: number | null;
  /** Confirmed bytes per file key that changed since the previous snapshot. */
  files: Record<string, { confirmedBytes: number; size: number }>;
}

/**
 * Tracks confirmed bytes per file and overall, and emits throttled snapshots (at most one per
 * `intervalMs`, plus a final one on `flush()`). Throughput is a moving average over a window of
 * samples, so one stalled part or a burst of completions doesn't swing the ETA.
 */
export class ProgressTracker {
  private confirmed = 0;
  /** Of `confirmed`, the bytes that were in the bucket before this run (see `known`). */
  private carried = 0;
  private total = 0;
  private filesTotal = 0;
  private filesDone = 0;
  private readonly perFile = new Map<string, { confirmedBytes: number; size: number }>();
  private readonly changed = new Set<string>();
  private readonly samples: Array<{ t: number; bytes: number }> = [];
  private lastEmit = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly emit: (snapshot: ProgressSnapshot) => void,
    private readonly options: { intervalMs?: number; windowMs?: number; now?: () => number } = {},
  ) {}

  /** Registers a file and its size before any bytes are counted. */
  addFile(key: string, size: number): void {
    if (this.perFile.has(key)) return;
    this.perFile.set(key, { confirmedBytes: 0, size });
    this.total += size;
    this.filesTotal++;
    this.changed.add(key);
  }

  /**
   * Counts bytes S3 confirmed for a file after this run sent them (negative only to take back a
   * failed part). They make the throughput.
   */
  confirm(key: string, bytes: number): void {
    this.count(key, bytes);
  }

  /**
   * Counts bytes the bucket held before this run sent anything (a file already there, parts
   * resumed from an earlier run): progress, but not throughput, so neither the ETA nor the
   * single-PUT limit takes a resumed run's head start for link speed.
   */
  known(key: string, bytes: number): void {
    if (this.count(key, bytes)) this.carried += bytes;
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
    const rate = this.bytesPerSecond();
    const remaining = this.total - this.confirmed;
    const files: ProgressSnapshot['files'] = {};
    for (const key of this.changed) files[key] = { ...this.perFile.get(key)! };
    return {
      confirmedBytes: this.confirmed,
      totalBytes: this.total,
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      bytesPerSecond: Math.round(rate),
      etaSeconds: rate > 0 ? Math.ceil(remaining / rate) : remaining === 0 ? 0 : null,
      files,
    };
  }

  /** Confirmed bytes per second, as a moving average; 0 while too few samples tell. */
  bytesPerSecond(): number {
    this.sample(this.now());
    return this.rate();
  }

  private now(): number {
    return (this.options.now ?? (() => performance.now()))();
  }

  private sample(now: number): void {
    this.samples.push({ t: now, bytes: this.confirmed - this.carried });
    const windowMs = this.options.windowMs ?? 5_000;
    while (this.samples.length > 2 && now - this.samples[1]!.t > windowMs) this.samples.shift();
  }

  private rate(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.t - first.t < 200) return 0;
    return Math.max(0, ((last.bytes - first.bytes) / (last.t - first.t)) * 1000);
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
