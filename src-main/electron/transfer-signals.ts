/**
 * What the OS shows of running transfers: the dock/taskbar progress bar, a power-save blocker
 * while bytes are moving, and a notification when a delivery ends. A pure reducer over the
 * delivery events (core/delivery `DeliveryEvent`, whose `upload` events carry core/storage's
 * progress snapshots) decides; `createSignalSink` applies the decisions to Electron.
 */

/**
 * The part of a delivery's events the shell reads. Structurally a subset of core's
 * `DeliveryEvent`, so the delivery engine's events can be passed straight in.
 */
export type TransferEvent =
  | { type: 'phase'; phase: string }
  | {
      type: 'upload';
      event:
        | { type: 'progress'; confirmedBytes: number; totalBytes: number }
        | { type: 'paused' | 'resumed' }
        | { type: string };
    }
  | { type: 'batch'; state: string; tracks?: number }
  | { type: 'finished'; state: string };

interface Run {
  label: string;
  confirmedBytes: number;
  totalBytes: number;
  paused: boolean;
  acceptedTracks: number;
}

/** Every transfer the shell knows to be running, by run id. */
export interface TransferState {
  runs: ReadonlyMap<string, Run>;
}

/** What main applies to the OS after each event. */
export interface TransferSignals {
  /** 0..1 for the dock/taskbar bar, -1 to remove it. */
  progress: number;
  /** Windows shows a paused bar in yellow; elsewhere the mode is ignored. */
  mode: 'normal' | 'paused';
  /** Whether the system must not suspend the app (`prevent-app-suspension`). */
  blocking: boolean;
  notification?: { title: string; body: string };
}

/** No transfers. */
export const idleTransfers: TransferState = { runs: new Map() };

/**
 * The state after one event of run `id` (`label` names the delivery in a notification), and the
 * signals to apply. A `finished` event ends the run and yields its notification.
 */
export function reduceTransfer(
  state: TransferState,
  id: string,
  label: string,
  event: TransferEvent,
): { state: TransferState; signals: TransferSignals } {
  const runs = new Map(state.runs);
  const run: Run = {
    ...(runs.get(id) ?? {
      label,
      confirmedBytes: 0,
      totalBytes: 0,
      paused: false,
      acceptedTracks: 0,
    }),
  };
  let notification: TransferSignals['notification'];
  if (event.type === 'finished') {
    runs.delete(id);
    notification =
      event.state === 'accepted'
        ? {
            title: 'Delivery accepted',
            body: `${run.label}: ${run.acceptedTracks ? `${run.acceptedTracks} tracks` : 'every batch'} accepted by the service.`,
          }
        : {
            title: 'Delivery stopped',
            body: `${run.label}: open History to see what failed; running it again resumes it.`,
          };
  } else {
    if (event.type === 'upload') {
      const upload = event.event;
      if (upload.type === 'progress' && 'totalBytes' in upload) {
        run.confirmedBytes = upload.confirmedBytes;
        run.totalBytes = upload.totalBytes;
      } else if (upload.type === 'paused') run.paused = true;
      else if (upload.type === 'resumed') run.paused = false;
    } else if (event.type === 'phase' && event.phase !== 'upload') {
      // Past the upload every byte is in the bucket: the bar stays full while batches go out.
      run.confirmedBytes = run.totalBytes;
    } else if (event.type === 'batch' && event.state === 'accepted') {
      run.acceptedTracks += event.tracks ?? 0;
    }
    runs.set(id, run);
  }
  const next = { runs };
  return { state: next, signals: { ...signalsOf(next), ...(notification && { notification }) } };
}

/** The bar and the blocker for a state: overall bytes over every run; paused runs don't block. */
export function signalsOf(state: TransferState): TransferSignals {
  const runs = [...state.runs.values()];
  if (runs.length === 0) return { progress: -1, mode: 'normal', blocking: false };
  const total = runs.reduce((sum, run) => sum + run.totalBytes, 0);
  const confirmed = runs.reduce(
    (sum, run) => sum + Math.min(run.confirmedBytes, run.totalBytes),
    0,
  );
  const allPaused = runs.every((run) => run.paused);
  return {
    progress: total > 0 ? confirmed / total : 0,
    mode: allPaused ? 'paused' : 'normal',
    blocking: !allPaused,
  };
}

/** Whether any transfer is running or paused (a quit must ask first). */
export function hasActiveTransfers(state: TransferState): boolean {
  return state.runs.size > 0;
}

/** The OS calls the sink makes; main passes Electron's. */
export interface SignalTargets {
  setProgressBar(progress: number, mode: TransferSignals['mode']): void;
  /** Starts a `prevent-app-suspension` blocker and returns its id. */
  startBlocker(): number;
  stopBlocker(id: number): void;
  notify(notification: { title: string; body: string }): void;
}

/**
 * Applies signals to the OS, touching each only when it changes: one blocker at most, stopped
 * as soon as nothing blocks; the bar only redrawn when its value or mode moves.
 */
export function createSignalSink(targets: SignalTargets): (signals: TransferSignals) => void {
  let blocker: number | undefined;
  let bar = { progress: -1, mode: 'normal' as TransferSignals['mode'] };
  return (signals) => {
    if (signals.blocking && blocker === undefined) blocker = targets.startBlocker();
    if (!signals.blocking && blocker !== undefined) {
      targets.stopBlocker(blocker);
      blocker = undefined;
    }
    // A thousandth is finer than any taskbar draws; skipping smaller moves spares the OS.
    const moved = Math.abs(signals.progress - bar.progress) >= 0.001 || signals.progress === -1;
    if ((moved && signals.progress !== bar.progress) || signals.mode !== bar.mode) {
      bar = { progress: signals.progress, mode: signals.mode };
      targets.setProgressBar(signals.progress, signals.mode);
    }
    if (signals.notification) targets.notify(signals.notification);
  };
}

/**
 * The shell's view of running transfers: feeds their events through the reducer to the OS, and
 * knows how to stop each one cleanly when the app quits.
 */
export class TransferMonitor {
  #state: TransferState = idleTransfers;
  readonly #stops = new Map<string, () => Promise<void>>();

  constructor(private readonly apply: (signals: TransferSignals) => void) {}

  /** One event of run `id`; a `finished` event forgets the run. */
  event(id: string, label: string, event: TransferEvent): void {
    const { state, signals } = reduceTransfer(this.#state, id, label, event);
    this.#state = state;
    if (!state.runs.has(id)) this.#stops.delete(id);
    this.apply(signals);
  }

  /**
   * How to pause run `id` at a part boundary with its journal flushed (for a delivery: abort its
   * signal and await the run, which records it as resumable).
   */
  onStop(id: string, stop: () => Promise<void>): void {
    this.#stops.set(id, stop);
  }

  /** How many runs are in flight or paused. */
  get active(): number {
    return this.#state.runs.size;
  }

  /** Stops every run cleanly and waits for all of them (one failing doesn't stop the others). */
  async pauseAll(): Promise<void> {
    const results = await Promise.allSettled([...this.#stops.values()].map((stop) => stop()));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
}
