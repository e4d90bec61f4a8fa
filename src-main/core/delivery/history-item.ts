/**
 * A recorded delivery as History shows it, in two sizes: the list's item (one table row: counts,
 * state, dates, profile, catalog, mode, folder, a short error), whose size does not grow with the
 * delivery's requests; and the detail the user opens (retries, and each request with the
 * service's verbatim answer), a page of requests at a time. Shared by every door.
 */
import type { DeliveryBatch, DeliveryHeader } from './delivery-record.js';
import { type DeliverySummary, DETAIL_PAGE_MAX } from './delivery-summary.js';
import { summarize } from './history.js';

/** One delivery in History's list: its summary with a short error, the same size at any scale. */
export interface DeliveryHistoryItem extends DeliverySummary {
  running: boolean;
  /** The catalog's name in the profile (its id when the profile no longer names it). */
  catalog_name: string;
}

/** One request of a delivery, with the service's answer. */
export interface DeliveryRequestView {
  index: number;
  state: DeliveryBatch['state'];
  tracks: number;
  attempts: number;
  status?: number;
  body?: unknown;
  error?: string;
}

/** What History shows when the user opens a delivery: a page of its requests, from `offset`. */
export interface DeliveryDetail {
  id: string;
  /** The delivery's error in full (the list carries its first line, cut short). */
  error: string;
  /** Each retry of failed files: when, in which run, how many, and the first few paths. */
  retries: Array<{ at: string; run: number; count: number; files: string[] }>;
  /** How many requests the delivery has; `requests` holds those from `offset` on. */
  total: number;
  offset: number;
  requests: DeliveryRequestView[];
}

/** How many paths of one retry History lists (the count says how many there were). */
const RETRY_PATHS_SHOWN = 20;

/** How many characters of the delivery's error the list carries (the detail has it whole). */
export const LIST_ERROR_CHARS = 200;

/**
 * A record as History's list shows it: no request, no answer, no retry, and the error cut to its
 * first line (or, while no error is recorded, a refused request's), so a delivery of 4,000
 * requests lists as small as one of a single request.
 */
export function historyItem(
  record: DeliveryHeader,
  running: boolean,
  catalogName: string,
): DeliveryHistoryItem {
  const firstError =
    record.error || record.batches.find((b) => b.state === 'failed' && b.error)?.error || '';
  return {
    ...summarize(record),
    error: shortError(firstError),
    running,
    catalog_name: catalogName,
  };
}

/** A page of a record's requests (`limit` of them from `offset`), with its retries and error. */
export function deliveryDetail(
  record: DeliveryHeader,
  page: { offset?: number; limit?: number } = {},
): DeliveryDetail {
  const offset = Math.max(0, page.offset ?? 0);
  const limit = Math.min(Math.max(1, page.limit ?? DETAIL_PAGE_MAX), DETAIL_PAGE_MAX);
  return {
    id: record.id,
    error: record.error ?? '',
    retries: (record.retries ?? []).map((r) => ({
      at: r.at,
      run: r.run,
      count: r.files.length,
      files: r.files.slice(0, RETRY_PATHS_SHOWN),
    })),
    total: record.batches.length,
    offset,
    requests: record.batches.slice(offset, offset + limit).map((b) => ({
      index: b.index,
      state: b.state,
      // json: one track per outer_id (the header has no track bodies); else one per file.
      tracks: record.mode === 'json' ? b.outerIds.length : b.keys.length,
      attempts: b.attempts,
      ...(b.response ? { status: b.response.status, body: b.response.body } : {}),
      ...(b.error ? { error: b.error } : {}),
    })),
  };
}

/** An error's first line, cut to `LIST_ERROR_CHARS` with an ellipsis when longer. */
function shortError(error: string): string {
  const line = error.split('\n', 1)[0]!.trim();
  return line.length > LIST_ERROR_CHARS ? `${line.slice(0, LIST_ERROR_CHARS - 1)}…` : line;
}
