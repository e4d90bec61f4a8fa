/**
 * The contract's catalog ledger operations: what a profile's catalog holds from this
 * workstation (`core/ledger/ledger-view.ts`), as rows for History and as CSV to download.
 */
import { catalogLedgerView, ledgerCsv } from '../core/ledger/ledger-view.js';
import type { CoreServices } from '../core/services.js';
import type { RequestOf, ResultOf } from './contract.js';

type Names = 'catalogLedger' | 'exportLedgerCsv';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };

/** The most rows History shows; the CSV export holds every one. */
const VIEW_ROWS = 1_000;

/** The handlers for the ledger domain, for the router. */
export function ledgerHandlers(services: CoreServices): Handlers {
  return {
    async catalogLedger({ profile, catalogId }) {
      return catalogLedgerView(services, profile, catalogId, { limit: VIEW_ROWS });
    },
    async exportLedgerCsv({ profile, catalogId }) {
      const view = await catalogLedgerView(services, profile, catalogId);
      const stamp = new Date().toISOString().slice(0, 10);
      const name = `${view.profile}-${view.catalog_name}`.replace(/[^\p{L}\p{N}._-]+/gu, '-');
      return {
        fileName: `courier-ledger-${name}-${stamp}.csv`,
        csv: ledgerCsv(view.entries),
        rows: view.total,
      };
    },
  };
}
