/**
 * The contract's delivery operations over core/delivery, driven exactly as `courier deliver`
 * drives them (plan → record saved → runDelivery), with the library's reviewed tracks instead of
 * tags read again. Runs go on in the background; their figures reach the renderer as throttled
 * `delivery:progress` events (the totals and only what changed since the previous one, so a
 * 10,000-file delivery does not ship every file a few times a second) and `delivery:state`
 * changes.
 */
import { audioFoldersInBucket } from '../core/bucket/bucket-browser.js';
import {
  type DeliveryRecord,
  DeliveryStore,
  retryableKeys,
} from '../core/delivery/delivery-record.js';
import { historyCsv, pickupCheck, summarize } from '../core/delivery/history.js';
import { libraryInput } from '../core/delivery/library-input.js';
import { PauseGate } from '../core/delivery/pause-gate.js';
import { type DeliveryPlan, planDelivery } from '../core/delivery/plan.js';
import { type DeliveryEvent, runDelivery } from '../core/delivery/run-delivery.js';
import { CourierError } from '../core/errors.js';
import type { CoreServices } from '../core/services.js';
import { SettingsStore, uploadOptionsOf } from '../core/settings/settings-store.js';
import { createS3Client } from '../core/storage/s3-client.js';
import type { UploadQueue } from '../core/storage/upload-queue.js';
import type {
  DeliveryHistoryItem,
  DeliveryPlanView,
  EventName,
  EventPayloads,
  RequestOf,
  ResultOf,
  TransferProgress,
  TransferSnapshot,
} from './contract.js';

type Names =
  | 'planDelivery'
  | 'startDelivery'
  | 'pauseDelivery'
  | 'resumeDelivery'
  | 'retryDelivery'
  | 'cancelDelivery'
  | 'listDeliveries'
  | 'activeDeliveries'
  | 'unfinishedDeliveries'
  | 'exportDeliveriesCsv'
  | 'pickupDelivery';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };
type Emit = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

/** What the shell (Electron) does with running deliveries: OS progress, keep-awake, quit. */
export interface TransferHooks {
  event(id: string, label: string, event: DeliveryEvent): void;
  onStop(id: string, stop: () => Promise<void>): void;
}

interface ActiveRun {
  record: DeliveryRecord;
  snapshot: TransferSnapshot;
  controller: AbortController;
  /** Holds the ingest step between requests while paused (the queue pauses the upload). */
  gate: PauseGate;
  queue?: UploadQueue;
  done: Promise<DeliveryRecord>;
  timer?: ReturnType<typeof setTimeout>;
  lastSent: number;
}

/** Snapshots go out at most this often per run (state changes go out at once). */
const PROGRESS_INTERVAL_MS = 250;

/** The handlers for the delivery domain, for the router. */
export function deliveryHandlers(
  services: CoreServices,
  emit: Emit,
  hooks?: TransferHooks,
): Handlers {
  const store = new DeliveryStore(services.dataDir);
  const settings = new SettingsStore(services.dataDir);
  const runs = new Map<string, ActiveRun>();

  async function makePlan(
    request: RequestOf<'planDelivery'>,
    extraTaken: string[] = [],
  ): Promise<{ plan: DeliveryPlan; view: DeliveryPlanView }> {
    const profile = await services.profiles.get(request.profile);
    const files = request.files.map(({ id, relativePath, draft }) => ({
      id,
      relativePath,
      ...grantOf(services, id),
      ...(draft ? { draft } : {}),
    }));
    const input = libraryInput(files, request.mode === 'json');
    const taken = new Set([
      ...(await store.list())
        .filter((r) => r.bucket === profile.bucket.bucket_name)
        .map((r) => r.folder),
      ...extraTaken,
    ]);
    const plan = planDelivery({
      profile: { name: profile.name, environment: profile.environment },
      bucket: profile.bucket.bucket_name,
      catalogId: request.catalogId,
      mode: request.mode,
      dir: input.dir,
      folder: request.folder,
      options: request.options ?? {},
      files: input.files,
      ...(request.mode === 'json' ? { tracks: input.tracks } : {}),
      ...(request.mapping ? { mapping: request.mapping } : {}),
      takenFolders: taken,
    });
    const r = plan.record;
    const view: DeliveryPlanView = {
      folder: r.folder,
      files: r.files.length,
      tracks: r.tracks?.reduce((n, b) => n + b.length, 0) ?? r.files.length,
      bytes: r.bytes.total,
      requests: r.batches.length,
      options: r.options,
      ...(r.mapping ? { mappingYaml: r.mapping.yaml } : {}),
      findings: plan.findings.map((f) => {
        const fileId = f.path ? input.idOfPath.get(f.path) : undefined;
        return { ...f, ...(fileId ? { fileId } : {}) };
      }),
      blocked: plan.blocked,
      production: profile.environment === 'production',
    };
    return { plan, view };
  }

  /** The catalog's name in its profile, or its id when the profile no longer names it. */
  async function catalogNames(): Promise<(profile: string, catalogId: string) => string> {
    const profiles = await services.profiles.list().catch(() => []);
    return (profile, catalogId) =>
      profiles.find((p) => p.name === profile)?.catalogs.find((c) => c.id === catalogId)?.name ||
      catalogId;
  }

  /** Starts a run of `record` in the background; `retryKeys` as in `runDelivery`. */
  async function begin(record: DeliveryRecord, retryKeys?: string[]): Promise<void> {
    const catalogName = (await catalogNames())(record.profile, record.catalogId);
    const label = `${record.folder} → ${catalogName}`;
    const controller = new AbortController();
    const retried = new Set(retryKeys ?? retryableKeys(record));
    const snapshot = snapshotOf(record, label, catalogName, retried);
    const run: ActiveRun = {
      record,
      snapshot,
      controller,
      gate: new PauseGate(),
      lastSent: 0,
      done: Promise.resolve(record),
    };
    runs.set(record.id, run);
    const byKey = new Map(snapshot.files.map((f) => [f.key, f]));
    /** What changed since the last progress event; undefined until the first (complete) one. */
    let changed: Changes | undefined;
    const sendState = () =>
      emit('delivery:state', {
        id: record.id,
        state: snapshot.state,
        paused: snapshot.paused,
        running: snapshot.running,
        ...(snapshot.error ? { error: snapshot.error } : {}),
      });
    const sendNow = () => {
      if (run.timer) clearTimeout(run.timer);
      run.timer = undefined;
      run.lastSent = Date.now();
      emit('delivery:progress', progressOf(snapshot, changed));
      changed = { files: new Set(), batches: new Set() };
    };
    const sendProgress = () => {
      if (run.timer) return;
      const wait = Math.max(0, run.lastSent + PROGRESS_INTERVAL_MS - Date.now());
      run.timer = setTimeout(sendNow, wait);
      run.timer.unref?.();
    };
    const onEvent = (event: DeliveryEvent) => {
      hooks?.event(record.id, label, event);
      applyEvent(snapshot, byKey, record, event, changed);
      if (
        event.type === 'upload' &&
        (event.event.type === 'paused' || event.event.type === 'resumed')
      ) {
        sendState();
      }
      if (event.type === 'phase' || event.type === 'batch') sendState();
      sendProgress();
    };
    hooks?.onStop(record.id, async () => {
      // Quit: keep the multipart uploads and journals so the next start resumes them.
      run.queue?.stop();
      controller.abort();
      run.gate.resume();
      await run.done;
    });
    run.done = (async () => {
      const uploadOptions = uploadOptionsOf(await settings.get());
      try {
        const connection = await services.connections.get(record.profile);
        snapshot.state = 'uploading';
        snapshot.running = true;
        sendState();
        sendNow(); // the complete picture; every later event carries only what changed
        return await runDelivery({
          record,
          store,
          api: connection.api,
          bucket: connection.bucket,
          dataDir: services.dataDir,
          signal: controller.signal,
          uploadOptions,
          pause: run.gate,
          ...(retryKeys ? { retryKeys } : {}),
          onUploadQueue: (queue) => {
            run.queue = queue;
            if (snapshot.paused) queue.pause();
          },
          onEvent,
        });
      } catch (error) {
        record.state = 'failed';
        record.error = error instanceof Error ? error.message : String(error);
        await store.save(record).catch(() => undefined);
        onEvent({ type: 'finished', state: 'failed' });
        return record;
      }
    })().then(async (final) => {
      snapshot.state = final.state;
      snapshot.running = false;
      snapshot.paused = false;
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
        if (accepted.has(file.key) || final.state === 'accepted') {
          view.state = 'done';
          delete view.error;
        } else if (file.state === 'failed') {
          view.state = 'failed';
          if (file.error) view.error = file.error;
        } else if (view.state !== 'failed') view.state = 'queued';
        if (`${view.state}|${view.error ?? ''}` !== before) changed?.files.add(file.key);
      }
      await services.log.log(final.state === 'accepted' ? 'info' : 'error', 'delivery run', {
        delivery: final.id,
        state: final.state,
        error: final.error,
      });
      sendNow();
      sendState();
      run.queue = undefined;
      return final;
    });
  }

  return {
    async planDelivery(request) {
      return (await makePlan(request)).view;
    },
    async startDelivery({ confirmProduction, ...request }) {
      const profile = await services.profiles.get(request.profile);
      if (profile.environment === 'production' && !confirmProduction) {
        throw new CourierError(
          'confirm_production',
          `"${profile.name}" is a production profile: confirm that you want to deliver to it.`,
        );
      }
      let { plan } = await makePlan(request);
      if (plan.blocked) throw blockedError(plan);
      // A folder already holding files in the bucket belongs to another delivery: never reuse it.
      const connection = await services.connections.get(request.profile);
      const s3 = createS3Client(connection.bucket);
      try {
        const inBucket = await audioFoldersInBucket(s3, connection.bucket.bucket);
        if (inBucket.includes(plan.record.folder)) {
          plan = (await makePlan(request, inBucket)).plan;
          if (plan.blocked) throw blockedError(plan);
        }
      } finally {
        s3.destroy();
      }
      await store.save(plan.record); // persisted before any upload or ingestion
      await begin(plan.record);
      return { id: plan.record.id };
    },
    async pauseDelivery({ id }) {
      const run = activeRun(id);
      run.snapshot.paused = true;
      run.queue?.pause();
      run.gate.pause();
      emit('delivery:state', { id, state: run.snapshot.state, paused: true, running: true });
      return { id, paused: true };
    },
    async resumeDelivery({ id }) {
      const run = runs.get(id);
      if (run?.snapshot.running) {
        run.snapshot.paused = false;
        run.queue?.resume();
        run.gate.resume();
        emit('delivery:state', { id, state: run.snapshot.state, paused: false, running: true });
        return { id, paused: false };
      }
      // Not running: an interrupted or failed delivery is run again from its record.
      await begin(await unfinishedRecord(id));
      return { id, paused: false };
    },
    async retryDelivery({ id, keys }) {
      if (runs.get(id)?.snapshot.running) {
        throw new CourierError(
          'running',
          `Delivery ${id} is still running; retry its failed files once it has ended.`,
        );
      }
      const record = await unfinishedRecord(id);
      const retryable = retryableKeys(record);
      const unknown = keys?.find((k) => !retryable.has(k));
      if (unknown !== undefined) {
        throw new CourierError(
          'not_failed',
          `${unknown} is not a failed file of delivery ${id}; only failed files can be retried.`,
        );
      }
      await begin(record, keys);
      return { id, files: keys?.length ?? retryable.size };
    },
    async cancelDelivery({ id }) {
      const run = activeRun(id);
      run.snapshot.paused = false;
      // A cancel aborts the multipart uploads too (a quit or an interruption keeps them).
      run.queue?.cancel();
      run.controller.abort();
      run.gate.resume();
      await run.done;
      return { id, canceled: true };
    },
    async listDeliveries() {
      const [records, nameOf] = await Promise.all([store.list(), catalogNames()]);
      return {
        deliveries: records
          .reverse()
          .map((r) =>
            historyItem(r, !!runs.get(r.id)?.snapshot.running, nameOf(r.profile, r.catalogId)),
          ),
      };
    },
    async activeDeliveries() {
      return { transfers: [...runs.values()].map((r) => structuredClone(r.snapshot)) };
    },
    async unfinishedDeliveries() {
      const [records, nameOf] = await Promise.all([store.list(), catalogNames()]);
      return {
        deliveries: records
          .filter((r) => r.state !== 'accepted' && !runs.get(r.id)?.snapshot.running)
          .reverse()
          .map((r) => historyItem(r, false, nameOf(r.profile, r.catalogId))),
      };
    },
    async exportDeliveriesCsv() {
      const stamp = new Date().toISOString().slice(0, 10);
      return { fileName: `courier-history-${stamp}.csv`, csv: historyCsv(await store.list()) };
    },
    async pickupDelivery({ id }) {
      const record = await store.load(id);
      if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
      const connection = await services.connections.get(record.profile);
      const s3 = createS3Client(connection.bucket);
      try {
        return { id, ...(await pickupCheck(s3, connection.bucket.bucket, record)) };
      } finally {
        s3.destroy();
      }
    },
  };

  /** A record that can run again: in the history and not accepted yet. */
  async function unfinishedRecord(id: string): Promise<DeliveryRecord> {
    const record = await store.load(id);
    if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
    if (record.state === 'accepted') {
      throw new CourierError('finished', `Delivery ${id} is already accepted; nothing to resume.`);
    }
    return record;
  }

  function activeRun(id: string): ActiveRun {
    const run = runs.get(id);
    if (!run?.snapshot.running) {
      throw new CourierError('not_running', `Delivery ${id} is not running.`);
    }
    return run;
  }
}

function grantOf(services: CoreServices, id: string) {
  try {
    const granted = services.grants.get(id);
    return { localPath: granted.path, size: granted.size };
  } catch {
    throw new CourierError(
      'not_granted',
      `A file of the library (${id}) is no longer available; add its folder again.`,
    );
  }
}

function blockedError(plan: DeliveryPlan): CourierError {
  const errors = plan.findings.filter((f) => f.level === 'error');
  return new CourierError(
    'blocked',
    `Validation blocks this delivery (${errors.length} error(s), first: ${errors[0]?.message ?? 'unknown'}); nothing was sent.`,
  );
}

/** The files and requests that changed since the previous progress event. */
interface Changes {
  files: Set<string>;
  batches: Set<number>;
}

/** One progress event: everything when `changed` is undefined (a run's first), else the changes. */
function progressOf(snapshot: TransferSnapshot, changed: Changes | undefined): TransferProgress {
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
function snapshotOf(
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
function applyEvent(
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
    const keys = record.batches[event.index]?.keys ?? [];
    const state =
      event.state === 'accepted' ? 'done' : event.state === 'failed' ? 'failed' : 'ingesting';
    for (const key of keys) {
      const file = byKey.get(key);
      if (!file) continue;
      file.state = state;
      if (event.state === 'failed' && event.message) file.error = event.message;
      changed?.files.add(key);
    }
  } else if (event.type === 'upload') {
    const u = event.event;
    const file = 'key' in u ? byKey.get(u.key) : undefined;
    if (u.type === 'progress') {
      // The uploader counts only this run's files; files already accepted count as done.
      const alreadyDone = snapshot.files
        .filter((f) => f.state === 'done')
        .reduce((n, f) => n + f.size, 0);
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
    } else if (file && (u.type === 'file-done' || u.type === 'file-skipped')) {
      file.state = 'verifying';
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

/** How many paths of one retry History lists (the count says how many there were). */
const RETRY_PATHS_SHOWN = 20;

/** A record as History shows it. */
function historyItem(
  record: DeliveryRecord,
  running: boolean,
  catalogName: string,
): DeliveryHistoryItem {
  return {
    ...summarize(record),
    running,
    catalog_name: catalogName,
    retries: (record.retries ?? []).map((r) => ({
      at: r.at,
      run: r.run,
      count: r.files.length,
      files: r.files.slice(0, RETRY_PATHS_SHOWN),
    })),
    requests: record.batches.map((b) => ({
      index: b.index,
      state: b.state,
      tracks: record.tracks?.[b.index]?.length ?? b.keys.length,
      attempts: b.attempts,
      ...(b.response ? { status: b.response.status, body: b.response.body } : {}),
      ...(b.error ? { error: b.error } : {}),
    })),
  };
}
