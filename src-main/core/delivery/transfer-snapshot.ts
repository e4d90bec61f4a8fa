/**
 * What a running delivery looks like to a person: the Transfers view's snapshot (and the
 * throttled progress events that update it). Projections of the record and of the run's events,
 * shared by every door; History's item is `history-item.ts`.
 */
import { withFields } from '../objects.js';
import type { DeliveryRecord } from './delivery-record.js';
import type { DeliveryMode } from './delivery-summary.js';
import type { DeliveryEvent } from './run-delivery.js';

/**
 * Where one file of a running delivery stands: `verifying` while the uploader completes it and
 * checks it with HeadObject, `done` once the bucket confirmed it (the request that ingests it has
 * its own state, in `batches`).
 */
export type TransferFileState = 'queued' | 'uploading' | 'verifying' | 'done' | 'failed';

/** One file of a running delivery, as Transfers lists it. */
export interface TransferFile {
  key: string;
  path: string;
  size: number;
  confirmedBytes: number;
  state: TransferFileState;
  error?: string;
}

/** How many files Transfers lists for one delivery: what a person can read, at any size. */
export const FILES_SHOWN = 500;

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
  /** How many of the delivery's files are in each state (all of them, listed or not). */
  fileCounts: Record<TransferFileState, number>;
  /**
   * The files listed: every file up to `FILES_SHOWN`; past that, failed files first, then those
   * in flight, then the next queued, then done ones. Failed files come first, the others in the
   * delivery's order.
   */
  files: TransferFile[];
  batches: Array<{
    index: number;
    state: 'pending' | 'sent' | 'accepted' | 'failed';
    tracks: number;
  }>;
  error?: string;
}

/**
 * One `delivery:progress` event: the overall figures; the files listed when they changed since
 * the run's previous event; the requests that changed (all of them when `complete`: a run's first
 * event, which also lists the files). The renderer merges it into the snapshot it holds.
 */
export interface TransferProgress extends Omit<TransferSnapshot, 'files' | 'batches'> {
  complete: boolean;
  files?: TransferSnapshot['files'];
  batches: TransferSnapshot['batches'];
}

/**
 * A run's own picture, which its events update in place: every file (Transfers gets the listed
 * ones), and the bytes of files whose requests were accepted before the run started (the uploader
 * counts only its own).
 */
export interface TransferRun extends Omit<TransferSnapshot, 'files' | 'fileCounts'> {
  files: TransferFile[];
  acceptedBefore: number;
}

/** What changed since the previous progress event: whether any file did, and which requests. */
export interface Changes {
  files: boolean;
  batches: Set<number>;
}

const EMPTY_COUNTS: Record<TransferFileState, number> = {
  queued: 0,
  uploading: 0,
  verifying: 0,
  done: 0,
  failed: 0,
};

/** Which files come first when not all are listed: failed, in flight, queued, done. */
const RANK: Record<TransferFileState, number> = {
  failed: 0,
  uploading: 1,
  verifying: 1,
  queued: 2,
  done: 3,
};

/** The files a run lists and how many are in each state: one pass over them. */
export function listedFiles(files: readonly TransferFile[]): {
  files: TransferFile[];
  counts: Record<TransferFileState, number>;
} {
  // The first FILES_SHOWN of each rank, by position: enough to fill the list from any rank.
  const ranked: number[][] = [[], [], [], []];
  let queued = 0;
  let uploading = 0;
  let verifying = 0;
  let done = 0;
  let failed = 0;
  for (let i = 0; i < files.length; i++) {
    const state = files[i]!.state;
    if (state === 'done') done += 1;
    else if (state === 'queued') queued += 1;
    else if (state === 'uploading') uploading += 1;
    else if (state === 'verifying') verifying += 1;
    else failed += 1;
    const rank = ranked[RANK[state]]!;
    if (rank.length < FILES_SHOWN) rank.push(i);
  }
  const counts = { queued, uploading, verifying, done, failed };
  const chosen = ranked.flat().slice(0, FILES_SHOWN);
  const first = failed > 0 ? chosen.filter((i) => files[i]!.state === 'failed') : [];
  const others = chosen.filter((i) => files[i]!.state !== 'failed').sort((a, b) => a - b);
  return { files: [...first, ...others].map((i) => ({ ...files[i]! })), counts };
}

/** The Transfers view of a run: its figures, the files listed and a copy of its requests. */
export function snapshotView(run: TransferRun): TransferSnapshot {
  const { files, batches, acceptedBefore, ...totals } = run;
  const listed = listedFiles(files);
  return {
    ...totals,
    fileCounts: listed.counts,
    files: listed.files,
    batches: batches.map((b) => ({ ...b })),
  };
}

/**
 * The progress events of one run: the first complete, each later one with the requests that
 * changed, and the files listed only when a file changed and the list with it.
 */
export class ProgressFeed {
  #changed: Changes | undefined;
  #counts = { ...EMPTY_COUNTS };
  #listed: TransferFile[] = [];
  #listedText = '';

  constructor(private readonly run: TransferRun) {}

  /** Where events note what they change; undefined until the first (complete) event is sent. */
  get changed(): Changes | undefined {
    return this.#changed;
  }

  next(): TransferProgress {
    const { files, batches, acceptedBefore, ...totals } = this.run;
    const changed = this.#changed;
    this.#changed = { files: false, batches: new Set() };
    let listedNow: TransferFile[] | undefined;
    if (!changed || changed.files) {
      const listed = listedFiles(files);
      this.#counts = listed.counts;
      const text = JSON.stringify(listed.files);
      if (!changed || text !== this.#listedText) {
        this.#listed = listed.files;
        this.#listedText = text;
        listedNow = this.#listed;
      }
    }
    return {
      ...totals,
      fileCounts: { ...this.#counts },
      complete: !changed,
      ...(listedNow ? { files: listedNow.map((f) => ({ ...f })) } : {}),
      batches: (changed ? batches.filter((b) => changed.batches.has(b.index)) : batches).map(
        (b) => ({ ...b }),
      ),
    };
  }
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
): TransferRun {
  const batchOfKey = new Map<string, number>();
  for (const b of record.batches) for (const k of b.keys) batchOfKey.set(k, b.index);
  const accepted = new Set(
    record.batches.filter((b) => b.state === 'accepted').map((b) => b.index),
  );
  const files = record.files.map((f): TransferFile => {
    const done = accepted.has(batchOfKey.get(f.key) ?? -1);
    const base = { key: f.key, path: f.path, size: f.size, confirmedBytes: done ? f.size : 0 };
    if (done) return withFields(base, { state: 'done' as const });
    if (f.state === 'failed' && !retried.has(f.key)) {
      return withFields(base, { state: 'failed' as const, ...(f.error ? { error: f.error } : {}) });
    }
    return withFields(base, { state: 'queued' as const });
  });
  const acceptedBefore = files.reduce((n, f) => n + f.confirmedBytes, 0);
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
    confirmedBytes: acceptedBefore,
    totalBytes: record.bytes.total,
    bytesPerSecond: 0,
    etaSeconds: null,
    files,
    acceptedBefore,
    batches: record.batches.map((b) => ({
      index: b.index,
      state: b.state,
      tracks: record.tracks?.[b.index]?.length ?? b.keys.length,
    })),
  };
}

/** Folds one delivery event into the snapshot, noting in `changed` the files and requests it touched. */
export function applyEvent(
  snapshot: TransferRun,
  byKey: Map<string, TransferFile>,
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
        if (changed) changed.files = true;
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
      snapshot.confirmedBytes = snapshot.acceptedBefore + u.confirmedBytes;
      snapshot.bytesPerSecond = u.bytesPerSecond;
      snapshot.etaSeconds = u.etaSeconds;
      for (const [key, figures] of Object.entries(u.files)) {
        const f = byKey.get(key);
        if (f && f.confirmedBytes !== figures.confirmedBytes) {
          f.confirmedBytes = figures.confirmedBytes;
          if (changed) changed.files = true;
        }
      }
    } else if (file && u.type === 'file-start') {
      file.state = 'uploading';
      delete file.error;
      if (changed) changed.files = true;
    } else if (file && u.type === 'file-verifying') {
      file.state = 'verifying';
      if (changed) changed.files = true;
    } else if (file && (u.type === 'file-done' || u.type === 'file-skipped')) {
      // Both come after the uploader's HeadObject matched the file: it is in the bucket.
      file.state = 'done';
      file.confirmedBytes = file.size;
      if (changed) changed.files = true;
    } else if (file && u.type === 'file-failed') {
      file.state = 'failed';
      file.error = u.message;
      if (changed) changed.files = true;
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
  snapshot: TransferRun,
  byKey: Map<string, TransferFile>,
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
    if (changed && `${view.state}|${view.error ?? ''}` !== before) changed.files = true;
  }
}
