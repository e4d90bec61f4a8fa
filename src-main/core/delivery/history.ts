/**
 * Delivery history: every record summarised, CSV export, and the "pickup" check (with
 * delete_delivered_file the service empties the delivery folder once it has taken the files).
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

import { formatCsv } from '../model/csv-text.js';
import { deliveryPrefix } from '../storage/object-key.js';
import { countsOf, type DeliveryHeader, type DeliveryRecord } from './delivery-record.js';
import type { DeliverySummary } from './delivery-summary.js';

export type { DeliverySummary };

/** The summary of one record (its header is enough: files and tracks are counted on save). */
export function summarize(record: DeliveryHeader): DeliverySummary {
  const counts = countsOf(record);
  return {
    id: record.id,
    state: record.state,
    profile: record.profile,
    environment: record.environment,
    catalog_id: record.catalogId,
    mode: record.mode,
    folder: record.folder,
    ingestion_id: record.options.ingestion_id,
    files: counts.files,
    tracks: counts.tracks,
    bytes: record.bytes.total,
    bytes_sent: record.bytes.sent,
    batches: record.batches.length,
    batches_accepted: record.batches.filter((b) => b.state === 'accepted').length,
    batches_failed: record.batches.filter((b) => b.state === 'failed').length,
    runs: record.runs,
    upload_ms: record.durations.uploadMs,
    confirm_ms: record.durations.confirmMs,
    ingest_ms: record.durations.ingestMs,
    created_at: record.createdAt,
    finished_at: record.finishedAt ?? '',
    error: record.error ?? '',
  };
}

/** The history as CSV (one row per delivery, header first), formula-safe for spreadsheets. */
export function historyCsv(records: DeliveryHeader[]): string {
  const header = Object.keys(summarize(emptyRecord)) as (keyof DeliverySummary)[];
  const rows = records.map(summarize).map((r) => header.map((h) => String(r[h] ?? '')));
  return formatCsv([header, ...rows]);
}

/** What is left in a delivery's folder: empty means the service has taken every file. */
export async function pickupCheck(
  s3: S3Client,
  bucket: string,
  record: DeliveryRecord,
): Promise<{ pickedUp: boolean; remaining: string[] }> {
  const remaining: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: deliveryPrefix(record.folder),
        ContinuationToken: token,
      }),
    );
    for (const object of page.Contents ?? []) if (object.Key) remaining.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return { pickedUp: remaining.length === 0, remaining };
}

const emptyRecord: DeliveryRecord = {
  version: 1,
  id: '',
  identity: '',
  state: 'planned',
  profile: '',
  environment: '',
  bucket: '',
  catalogId: '',
  mode: 'json',
  dir: '',
  folder: '',
  options: {
    ingestion_id: '',
    overwrite_audio_file: true,
    delete_delivered_file: true,
    media_fetch_type: 's3',
  },
  files: [],
  batches: [],
  createdAt: '',
  updatedAt: '',
  runs: 0,
  durations: { uploadMs: 0, confirmMs: 0, ingestMs: 0 },
  bytes: { total: 0, sent: 0 },
};
