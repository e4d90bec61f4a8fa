import type {
  CourierApi,
  DeliveryHistoryItem,
  TransferSnapshot,
} from '../../src-main/ipc/contract.js';
import { mergeProgress } from './merge-progress.js';

/** Running and recent deliveries, kept current by main's `delivery:*` events. */
export class TransfersState {
  transfers = $state.raw<TransferSnapshot[]>([]);
  /** Deliveries a quit or crash interrupted, offered for resume. */
  unfinished = $state.raw<DeliveryHistoryItem[]>([]);
  error = $state('');

  readonly running = $derived(this.transfers.filter((t) => t.running).length);

  constructor(private readonly api: CourierApi) {
    api.on('delivery:progress', (progress) =>
      this.#put(
        mergeProgress(
          this.transfers.find((t) => t.id === progress.id),
          progress,
        ),
      ),
    );
    api.on('delivery:state', (change) => {
      const current = this.transfers.find((t) => t.id === change.id);
      if (current) {
        this.#put({
          ...current,
          state: change.state,
          paused: change.paused,
          finishing: change.finishing,
          running: change.running,
          ...(change.error ? { error: change.error } : {}),
        });
      }
      if (!change.running) void this.loadUnfinished();
    });
  }

  #put(snapshot: TransferSnapshot): void {
    const others = this.transfers.filter((t) => t.id !== snapshot.id);
    this.transfers = [snapshot, ...others];
  }

  /** What main is running now, and what was left unfinished. */
  async load(): Promise<void> {
    const active = await this.api.activeDeliveries({});
    if (active.ok) {
      for (const snapshot of active.value.transfers) this.#put(snapshot);
    }
    await this.loadUnfinished();
  }

  async loadUnfinished(): Promise<void> {
    const result = await this.api.unfinishedDeliveries({});
    if (result.ok) {
      const shown = this.transfers.filter((t) => t.running).map((t) => t.id);
      this.unfinished = result.value.deliveries.filter((d) => !shown.includes(d.id));
    }
  }

  async pause(id: string): Promise<void> {
    this.#report(await this.api.pauseDelivery({ id }));
  }

  /** Resumes a paused run, or runs an interrupted delivery again from where it stopped. */
  async resume(id: string): Promise<void> {
    this.#report(await this.api.resumeDelivery({ id }));
    await this.loadUnfinished();
  }

  /** Runs an ended delivery again for its failed files: those of `keys`, or all of them. */
  async retry(id: string, keys?: string[]): Promise<void> {
    this.#report(await this.api.retryDelivery(keys ? { id, keys } : { id }));
    await this.loadUnfinished();
  }

  async cancel(id: string): Promise<void> {
    this.#report(await this.api.cancelDelivery({ id }));
  }

  #report(result: { ok: boolean; error?: { message: string } }): void {
    this.error = result.ok ? '' : (result.error?.message ?? 'failed');
  }
}
