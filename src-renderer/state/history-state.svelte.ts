import type {
  CourierApi,
  DeliveryDetail,
  DeliveryHistoryItem,
} from '../../src-main/ipc/contract.js';
import { downloadText } from '../lib/download.js';
import { CatalogLedgerState } from './catalog-ledger.svelte.js';
import { HistorySearchState } from './history-search.svelte.js';

/** The opened delivery's detail: being fetched, shown (requests so far), or why it could not be. */
export type DetailState =
  | { status: 'loading' }
  | { status: 'shown'; detail: DeliveryDetail; more: boolean }
  | { status: 'failed'; message: string };

/**
 * Every delivery (one small item each); the one the user opened, with its requests and the
 * service's answers fetched on demand, a page at a time; the search; the catalog ledger.
 */
export class HistoryState {
  tab = $state<'deliveries' | 'catalog'>('deliveries');
  deliveries = $state.raw<DeliveryHistoryItem[]>([]);
  expanded = $state<string | null>(null);
  detail = $state.raw<DetailState | null>(null);
  pickup = $state.raw<Record<string, string>>({});
  error = $state('');

  readonly search: HistorySearchState;
  readonly catalog: CatalogLedgerState;

  constructor(private readonly api: CourierApi) {
    this.search = new HistorySearchState(api);
    this.catalog = new CatalogLedgerState(api);
  }

  /** Lists the deliveries; the opened one's requests are fetched again from the first page. */
  async load(): Promise<void> {
    const result = await this.api.listDeliveries({});
    if (result.ok) this.deliveries = result.value.deliveries;
    else this.error = result.error.message;
    if (this.expanded) await this.#fetch(this.expanded, 0);
  }

  /** Opens a delivery (fetching its first page of requests), or closes the one open. */
  async toggle(id: string): Promise<void> {
    if (this.expanded === id) {
      this.expanded = null;
      this.detail = null;
      return;
    }
    this.expanded = id;
    this.detail = { status: 'loading' };
    await this.#fetch(id, 0);
  }

  /** Fetches the opened delivery's next page of requests. */
  async more(): Promise<void> {
    const current = this.detail;
    if (!this.expanded || current?.status !== 'shown' || !current.more) return;
    const d = current.detail;
    await this.#fetch(this.expanded, d.offset + d.requests.length);
  }

  /** Shows the page of `id` from `offset`, after the requests already shown when not the first. */
  async #fetch(id: string, offset: number): Promise<void> {
    const result = await this.api.deliveryDetail({ id, offset });
    if (this.expanded !== id) return; // closed or another one opened meanwhile
    if (!result.ok) {
      this.detail = { status: 'failed', message: result.error.message };
      return;
    }
    const page = result.value;
    const before = this.detail?.status === 'shown' && offset > 0 ? this.detail.detail.requests : [];
    const detail = { ...page, offset: 0, requests: [...before, ...page.requests] };
    this.detail = { status: 'shown', detail, more: detail.requests.length < page.total };
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
