/**
 * What a delivery is, summed up: the types the history, the CLI and the renderer (through the
 * contract) share. Pure: no Node imports, so the renderer's type-check can include it.
 */

/** The ingestion endpoints a delivery can use (service interface §4.3–4.5). */
export const deliveryModes = ['json', 'audio_only', 'audio_mapping'] as const;

/** The ingestion endpoint a delivery uses. */
export type DeliveryMode = (typeof deliveryModes)[number];

/** The most requests (with the service's answers) one page of a delivery's detail holds. */
export const DETAIL_PAGE_MAX = 500;

/** Where a delivery is in its life. */
export type DeliveryState = 'planned' | 'uploading' | 'ingesting' | 'accepted' | 'failed';

/** One line of history. */
export interface DeliverySummary {
  id: string;
  state: DeliveryState;
  profile: string;
  environment: string;
  catalog_id: string;
  mode: DeliveryMode;
  folder: string;
  ingestion_id: string;
  files: number;
  tracks: number;
  bytes: number;
  bytes_sent: number;
  batches: number;
  batches_accepted: number;
  batches_failed: number;
  runs: number;
  upload_ms: number;
  confirm_ms: number;
  ingest_ms: number;
  created_at: string;
  finished_at: string;
  error: string;
}
