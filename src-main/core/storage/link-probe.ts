/**
 * Holds back all but the first few files of a run until the link's throughput is measured, so
 * that `singlePutLimit` decides the rest with a real figure instead of the cautious default.
 *
 * The probe costs no parallelism where it matters: a file above the part floor is cut into parts
 * that alone can fill the concurrency budget. For small files it ends as soon as the first few
 * have ended, measured or not (a run of skips or failures confirms no bytes).
 */
export class LinkProbe {
  /** Resolves when every file may start. */
  readonly opened: Promise<void>;
  private open!: () => void;
  private ended = 0;

  constructor(readonly probeFiles = 2) {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  /** Called with each progress snapshot's rate; a measured rate ends the probe. */
  sawRate(bytesPerSecond: number): void {
    if (bytesPerSecond > 0) this.open();
  }

  /** Called when a file has ended, however it ended. */
  fileEnded(): void {
    if (++this.ended >= this.probeFiles) this.open();
  }

  /** Ends the probe now (cancel, stop). */
  end(): void {
    this.open();
  }
}
