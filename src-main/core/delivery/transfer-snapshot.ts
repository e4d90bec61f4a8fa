/**
 * What a running delivery looks like to a person: the Transfers view's snapshot (and the
 * throttled progress events that update it). Projections of the record and of the run's events,
 * shared by every door; History's item is `history-item.ts`.
 */
import type { DeliveryRecord } from './delivery-record.js';
import type { DeliveryMode } from './delivery-summary.js';
import type { DeliveryEvent } from './run-delivery.js';

/**
 * Where one file of a running delivery stands: `verifying` while the uploader completes it and
 * checks it with HeadObject, `done` once the bucket confirmed it (the request that ingests it has
 * its own state, in `batches`).
 */
export type TransferFileState = 'queued' | 'uploading' | 'verifying' | 'done' | 'failed';

/** A running (or just ended) delivery as the Transfers view shows it. */
export interface TransferSnapshot {
  id: string;
  label: string;
  profile: string;
  catalogId: string;
  /** The catalog's name in the profile (its id when the profile no longer names it). */
  catalogName: string;
  mode: DeliveryMode;
  folder: string;
  state: 'planned' | 'uploading' | 'ingesting' | 'accepted' | 'failed';
  phase: 'upload' | 'confirm' | 'ingest' | 'done';
  paused: boolean;
  /** While pausing: requests still in flight (they finish or are aborted within 1 s); else 0. */
  finishing: number;
  running: boolean;
  confirmedBytes: number;
  totalBytes: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
  files: Array<{
    key: string;
    path: string;
    size: number;
    confirmedBytes: number;
    state: TransferFileState;
    error?: string;
  }>;
  batches: Array<{
    index: number;
    state: 'pending' | 'sent' | 'accepted' | 'failed';
    tracks: number;
  }>;
  error?: string;
}

/**
 * One `delivery:progress` event: the overall figures, and only the files and requests that
 * changed since the run's previous event (`complete` when they are all there: a run's first
 * event). The renderer merges it into the snapshot it holds.
 */
export interface TransferProgress extends Omit<TransferSnapshot, 'files' | 'batches'> {
  complete: boolean;
  files: TransferSnapshot['files'];
  batches: TransferSnapshot['batches'];
}

/** The files and requests that changed since the previous progress event. */
export interface Changes {
  files: Set<string>;
  batches: Set<number>;
}

/** One progress event: everything when `changed` is undefined (a run's first), else the changes. */
export function progressOf(
  snapshot: TransferSnapshot,
  changed: Changes | undefined,
): TransferProgress {
  const { files, batches, ...totals } = snapshot;
  return structuredClone({
    ...totals,
    complete: !changed,
    files: changed ? files.filter((f) => changed.files.has(f.key)) : files,
    batches: changed ? batches.filter((b) => changed.batches.has(b.index)) : batches,
  });
}

/**
 * The Transfers view's starting picture of a record: files of accepted requests are done, failed
 * files this run leaves alone stay failed, the rest are queued.
 */
export function snapshotOf(
  record: DeliveryRecord,
  label: string,
  catalogName: string,
  retried: Set<string>,
): TransferSnapshot {
  const batchOfKey = new Map<string, number>();
  for (const b of record.batches) for (const k of b.keys) batchOfKey.set(k, b.index);
  const accepted = new Set(
    record.batches.filter((b) => b.state === 'accepted').map((b) => b.index),
  );
  const files = record.files.map((f): TransferSnapshot['files'][number] => {
    const done = accepted.has(batchOfKey.get(f.key) ?? -1);
    const base = { key: f.key, path: f.path, size: f.size, confirmedBytes: done ? f.size : 0 };
    if (done) return { ...base, state: 'done' };
    if (f.state === 'failed' && !retried.has(f.key)) {
      return { ...base, state: 'failed', ...(f.error ? { error: f.error } : {}) };
    }
    return { ...base, state: 'queued' };
  });
  return {
    id: record.id,
    label,
    profile: record.profile,
    catalogId: record.catalogId,
    catalogName,
    mode: record.mode,
    folder: record.folder,
    state: record.state,
    phase: 'upload',
    paused: false,
    finishing: 0,
    running: true,
    confirmedBytes: files.reduce((n, f) => n + f.confirmedBytes, 0),
    totalBytes: record.bytes.total,
    bytesPerSecond: 0,
    etaSeconds: null,
    files,
    batches: record.batches.map((b) => ({
      index: b.index,
      state: b.state,
      tracks: record.tracks?.[b.index]?.length ?? b.keys.length,
    })),
  };
}

/** Folds one delivery event into the snapshot, noting in `changed` the files and requests it touched. */
export function applyEvent(
  snapshot: TransferSnapshot,
  byKey: Map<string, TransferSnapshot['files'][number]>,
  record: DeliveryRecord,
  event: DeliveryEvent,
  changed: Changes | undefined,
): void {
  if (event.type === 'phase') {
    snapshot.phase = event.phase;
    if (event.phase === 'ingest') {
      snapshot.state = 'ingesting';
      snapshot.bytesPerSecond = 0;
      snapshot.etaSeconds = 0;
    }
  } else if (event.type === 'batch') {
    const batch = snapshot.batches[event.index];
    if (batch) batch.state = event.state;
    changed?.batches.add(event.index);
    // A file is done once the bucket confirmed it; only a refused request changes that.
    if (event.state === 'failed') {
      for (const key of record.batches[event.index]?.keys ?? []) {
        const file = byKey.get(key);
        if (!file) continue;
        file.state = 'failed';
        if (event.message) file.error = event.message;
        changed?.files.add(key);
      }
    }
  } else if (event.type === 'upload') {
    const u = event.event;
    const file = 'key' in u ? byKey.get(u.key) : undefined;
    if (u.type === 'pausing') {
      snapshot.finishing = u.finishing;
    } else if (u.type === 'paused' || u.type === 'resumed') {
      snapshot.finishing = 0;
    } else if (u.type === 'progress') {
      // The uploader counts only this run's files; those of requests accepted before it (no
      // request is sent while uploading) count as done.
      let alreadyDone = 0;
      for (const batch of record.batches) {
        if (batch.state !== 'accepted') continue;
        for (const key of batch.keys) alreadyDone += byKey.get(key)?.size ?? 0;
      }
      snapshot.confirmedBytes = alreadyDone + u.confirmedBytes;
      snapshot.bytesPerSecond = u.bytesPerSecond;
      snapshot.etaSeconds = u.etaSeconds;
      for (const [key, figures] of Object.entries(u.files)) {
        const f = byKey.get(key);
        if (f && f.confirmedBytes !== figures.confirmedBytes) {
          f.confirmedBytes = figures.confirmedBytes;
          changed?.files.add(key);
        }
      }
    } else if (file && u.type === 'file-start') {
      file.state = 'uploading';
      delete file.error;
      changed?.files.add(file.key);
    } else if (file && u.type === 'file-verifying') {
      file.state = 'verifying';
      changed?.files.add(file.key);
    } else if (file && (u.type === 'file-done' || u.type === 'file-skipped')) {
      // Both come after the uploader's HeadObject matched the file: it is in the bucket.
      file.state = 'done';
      file.confirmedBytes = file.size;
      changed?.files.add(file.key);
    } else if (file && u.type === 'file-failed') {
      file.state = 'failed';
      file.error = u.message;
      changed?.files.add(file.key);
    }
  } else if (event.type === 'finished') {
    snapshot.state = event.state;
  }
}

/**
 * Folds a run's final record into its snapshot: files of accepted requests are done, failed
 * files stay failed with their reason, the rest wait.
 */
export function applyFinal(
  snapshot: TransferSnapshot,
  byKey: Map<string, TransferSnapshot['files'][number]>,
  final: DeliveryRecord,
  changed: Changes | undefined,
): void {
  snapshot.state = final.state;
  snapshot.running = false;
  snapshot.paused = false;
  snapshot.finishing = 0;
  snapshot.phase = 'done';
  if (final.error) snapshot.error = final.error;
  else delete snapshot.error;
  const accepted = new Set<string>();
  for (const batch of final.batches) {
    const view = snapshot.batches[batch.index];
    if (view && view.state !== batch.state) {
      view.state = batch.state;
      changed?.batches.add(batch.index);
    }
    if (batch.state === 'accepted') for (const key of batch.keys) accepted.add(key);
  }
  for (const file of final.files) {
    const view = byKey.get(file.key);
    if (!view) continue;
    const before = `${view.state}|${view.error ?? ''}`;
    if (accepted.has(file.key) || final.state === 'accepted' || file.state === 'confirmed') {
      // Accepted, or confirmed in the bucket with its request still to send: the file is there.
      view.state = 'done';
      view.confirmedBytes = view.size;
      delete view.error;
    } else if (file.state === 'failed') {
      view.state = 'failed';
      if (file.error) view.error = file.error;
    } else if (view.state !== 'failed') view.state = 'queued';
    if (`${view.state}|${view.error ?? ''}` !== before) changed?.files.add(file.key);
  }
}
