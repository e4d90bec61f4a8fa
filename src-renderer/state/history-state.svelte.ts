import type { CourierApi, DeliveryHistoryItem } from '../../src-main/ipc/contract.js';
import { downloadText } from '../lib/download.js';
import { CatalogLedgerState } from './catalog-ledger.svelte.js';
import { HistorySearchState } from './history-search.svelte.js';

/** Every delivery with its requests and the service's answers; the search; the catalog ledger. */
export class HistoryState {
  tab = $state<'deliveries' | 'catalog'>('deliveries');
  deliveries = $state.raw<DeliveryHistoryItem[]>([]);
  expanded = $state<string | null>(null);
  pickup = $state.raw<Record<string, string>>({});
  error = $state('');

  readonly search: HistorySearchState;
  readonly catalog: CatalogLedgerState;

  constructor(private readonly api: CourierApi) {
    this.search = new HistorySearchState(api);
    this.catalog = new CatalogLedgerState(api);
  }

  async load(): Promise<void> {
    const result = await this.api.listDeliveries({});
    if (result.ok) this.deliveries = result.value.deliveries;
    else this.error = result.error.message;
  }

  /** Downloads the history as CSV (formula-safe, built by core). */
  async exportCsv(): Promise<void> {
    const result = await this.api.exportDeliveriesCsv({});
    if (result.ok) downloadText(result.value.fileName, result.value.csv, 'text/csv');
    else this.error = result.error.message;
  }

  /** Whether the service has taken every file of a delivery's folder. */
  async checkPickup(id: string): Promise<void> {
    const result = await this.api.pickupDelivery({ id });
    const text = result.ok
      ? result.value.pickedUp
        ? 'The service has taken every file.'
        : `${result.value.remaining.length} file(s) still in the delivery folder.`
      : result.error.message;
    this.pickup = { ...this.pickup, [id]: text };
  }
}
