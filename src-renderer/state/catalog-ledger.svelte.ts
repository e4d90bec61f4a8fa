import type { CatalogLedgerView, CourierApi } from '../../src-main/ipc/contract.js';
import { downloadText } from '../lib/download.js';

/** History's Catalog section: what a profile's catalog holds from this workstation. */
export class CatalogLedgerState {
  profile = $state('');
  catalogId = $state('');
  view = $state.raw<CatalogLedgerView | null>(null);
  loading = $state(false);
  error = $state('');
  exported = $state('');

  constructor(private readonly api: CourierApi) {}

  /** Reads the chosen catalog's ledger. */
  async load(): Promise<void> {
    if (!this.profile || !this.catalogId) return;
    this.loading = true;
    this.exported = '';
    const result = await this.api.catalogLedger({
      profile: this.profile,
      catalogId: this.catalogId,
    });
    this.loading = false;
    if (result.ok) {
      this.view = result.value;
      this.error = '';
    } else {
      this.view = null;
      this.error = result.error.message;
    }
  }

  /** Downloads every row as CSV (formula-safe, built by core). */
  async exportCsv(): Promise<void> {
    const result = await this.api.exportLedgerCsv({
      profile: this.profile,
      catalogId: this.catalogId,
    });
    if (!result.ok) {
      this.error = result.error.message;
      return;
    }
    downloadText(result.value.fileName, result.value.csv, 'text/csv');
    this.exported = `Exported ${result.value.rows} track(s) as ${result.value.fileName}.`;
  }
}
