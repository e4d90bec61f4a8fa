/**
 * The one delivery service every door uses (`courier deliver`, the app's IPC handlers, tests and
 * `bench:deliver`): plan, pre-flight, start or resume, retry, pause, cancel, the running
 * deliveries' snapshots and events, the settings a run uses and the log of each run. A door only
 * turns its input into a `DeliveryRequest` and renders what comes back.
 *
 * One process works on a delivery at a time: a run holds an OS-released lock on its record (and
 * the planning of a new delivery holds one on the command's identity), so a second process — or a
 * second click — is told who holds it instead of sending the same batches again.
 */
import { basename } from 'node:path';

import { audioFoldersInBucket } from '../bucket/bucket-browser.js';
import type { Connection } from '../connection.js';
import { CourierError } from '../errors.js';
import type { FileFingerprint } from '../files/file-fingerprint.js';
import { acquireProcessLock, type ProcessLock } from '../files/process-lock.js';
import { CatalogLedger } from '../ledger/catalog-ledger.js';
import { albumOf } from '../model/albums.js';
import type { CsvEncoding } from '../model/csv-text.js';
import { applyFileNameMapping, type FileNameMapping } from '../model/filename-mapping.js';
import type { DraftTrack } from '../model/track.js';
import { withFields } from '../objects.js';
import type { Profile } from '../profiles/profile.js';
import type { CoreServices } from '../services.js';
import { rulesFor } from '../settings/settings.js';
import { SettingsStore, uploadOptionsOf } from '../settings/settings-store.js';
import { createS3Client } from '../storage/s3-client.js';
import type { UploadQueue } from '../storage/upload-queue.js';
import {
  catalogChanges,
  type CatalogSummary,
  catalogSummary,
  type LeftOutTrack,
} from './catalog-changes.js';
import { type DeliveredTrack, deliveredTrack } from './delivered-tracks.js';
import {
  type DeliveryHeader,
  deliveryIdentity,
  type DeliveryMode,
  type DeliveryOptions,
  type DeliveryRecord,
  DeliveryStore,
  retryableKeys,
} from './delivery-record.js';
import { historyCsv, pickupCheck } from './history.js';
import {
  type DeliveryDetail,
  deliveryDetail,
  type DeliveryHistoryItem,
  historyItem,
} from './history-item.js';
import { type HistorySearchResult, searchHistory, type SearchOptions } from './history-search.js';
import {
  GONE_REASON,
  leftOutFilesLine,
  type LibraryFile,
  libraryInput,
  unusableReason,
} from './library-input.js';
import { applyMasterChecks, checkMasters, type MasterRead, readMasters } from './masters-check.js';
import { PauseGate } from './pause-gate.js';
import {
  type DeliveryPlan,
  type LocalFile,
  planDelivery,
  type PlanFinding,
  type PlanInput,
  type PlannedTrack,
} from './plan.js';
import { changedFiles, fingerprintPlan, replanRecord } from './planned-files.js';
import { preflight, type PreflightError, unknownCatalog } from './preflight.js';
import { prepareDelivery } from './prepare.js';
import { type DeliveryEvent, runDelivery } from './run-delivery.js';
import {
  applyEvent,
  applyFinal,
  ProgressFeed,
  snapshotOf,
  snapshotView,
  type TransferProgress,
  type TransferRun,
  type TransferSnapshot,
} from './transfer-snapshot.js';

/** Where a delivery's tracks come from: a folder on disk (the CLI) or the reviewed library. */
export type DeliverySource =
  | {
      kind: 'folder';
      dir: string;
      metadataCsv?: string;
      /** The CSV's encoding when the user declares it; detected otherwise. */
      metadataEncoding?: CsvEncoding;
      download?: boolean;
      /** Masters (paths relative to `dir`) the label accepts cut short (`--accept-cut-short`). */
      acceptCutShort?: string[];
    }
  | {
      kind: 'library';
      /** Granted files (main resolves their paths); json mode carries each reviewed draft. */
      files: Array<{
        id: string;
        relativePath: string;
        draft?: DraftTrack;
        excluded?: boolean;
        /** Body fields the user removed in review (`clearedFields`). */
        cleared?: string[];
        /** The label accepts this master cut short, as it is. */
        acceptCutShort?: boolean;
        /** The renderer found the file gone or changed since it was added. */
        missing?: boolean;
      }>;
    };

/** What a door asks for. */
export interface DeliveryRequest {
  profile: string;
  catalogId: string;
  mode: DeliveryMode;
  /** The folder under delivery/audio/ asked for; else one is chosen. */
  folder?: string;
  options?: Partial<DeliveryOptions>;
  mapping?: FileNameMapping & { storage?: 'file' | 'content' };
  source: DeliverySource;
  /** Deliver everything again, not only what changed since the catalog's last deliveries. */
  all?: boolean;
  /** Leave out the tracks (or files) with errors, listed as skipped, instead of blocking. */
  skipInvalid?: boolean;
}

/** Nothing in the delivery differs from what the catalog already holds: nothing to send. */
export class NothingChangedError extends CourierError {
  constructor(
    readonly unchanged: number,
    readonly latest: { delivery: string; at: string } | undefined,
    readonly catalog?: CatalogSummary,
  ) {
    const gone = catalog?.gone ?? [];
    super(
      'nothing_changed',
      `nothing changed since delivery ${latest?.delivery ?? '?'} (${latest?.at.slice(0, 10) ?? '?'}): its ${unchanged} track(s) are in the catalog as they are on disk; nothing was sent (--all delivers everything again)${gone.length > 0 ? `. ${goneText(gone)}` : ''}`,
    );
    this.name = 'NothingChangedError';
  }
}

/** The line about tracks delivered from a folder and no longer in it (never deleted). */
function goneText(gone: CatalogSummary['gone']): string {
  return `${gone.length} track(s) delivered to this catalog from this folder are no longer in it (first: ${gone[0]!.path ?? gone[0]!.outer_id}); the interface has no delete, so they stay in the catalog`;
}

/** A re-delivery would remove fields delivered before: it is sent only once confirmed. */
export class RemovalsError extends CourierError {
  constructor(readonly removals: CatalogSummary['removals']) {
    const first = removals[0]!;
    super(
      'confirm_removals',
      `this delivery removes fields the catalog holds for ${removals.length} track(s) (first: ${first.outer_id}: ${first.fields.join(', ')}); confirm the removal to send it`,
    );
    this.name = 'RemovalsError';
  }
}

/** A plan, with what a door needs to show it. */
export interface PlannedDelivery {
  plan: DeliveryPlan;
  profile: Profile;
  /** What it was planned from (to plan again with only what changed). */
  input: PlanInput;
  /** Library plans: the grant id of each planned path, so findings point back at rows. */
  idOfPath?: Map<string, string>;
  /** Tracks left out: excluded by the user, skipped for their errors. */
  leftOut: LeftOutTrack[];
  /** Library plans: the line naming the files that can't be delivered and why, when any. */
  leftOutLine?: string;
  /** Where every file of the source is on disk, left-out ones too. */
  localPaths: Set<string>;
  /** Set by `plan` when nothing differs from the catalog (a start throws it instead). */
  nothingChanged?: NothingChangedError;
  /** Set by `plan` when the profile names no such catalog (a start's pre-flight throws it). */
  unknownCatalog?: PreflightError;
}

/** Validation blocks the delivery: nothing was uploaded or sent. */
export class BlockedError extends CourierError {
  constructor(readonly plan: DeliveryPlan) {
    const errors = plan.findings.filter((f) => f.level === 'error');
    super(
      'blocked',
      `validation blocks this delivery (${errors.length} error(s), first: ${errors[0]?.message ?? 'unknown'}); nothing was sent`,
    );
    this.name = 'BlockedError';
  }
}

/** What the service tells a door as deliveries run. */
export interface DeliveryListeners {
  /** Every event of every run, as it happens (the CLI's lines, the OS progress bar). */
  event?(id: string, label: string, event: DeliveryEvent): void;
  /** A run started, paused (pausing, then paused), resumed or ended. */
  state?(state: {
    id: string;
    state: TransferSnapshot['state'];
    paused: boolean;
    finishing: number;
    running: boolean;
    error?: string;
  }): void;
  /** Throttled figures: a run's first is complete, later ones carry only what changed. */
  progress?(progress: TransferProgress): void;
}

/** A delivery running in this process. */
export interface ActiveRun {
  readonly id: string;
  /** What the plan found that does not block it (warnings), for the door to show. */
  readonly findings: PlanFinding[];
  /** True when this run continues a record found on disk (stopped, failed or killed before). */
  readonly resumed: boolean;
  /** Resolves to the final record when the run ends (never rejects). */
  readonly done: Promise<DeliveryRecord>;
}

interface RunState extends ActiveRun {
  record: DeliveryRecord;
  snapshot: TransferRun;
  controller: AbortController;
  gate: PauseGate;
  queue?: UploadQueue;
  done: Promise<DeliveryRecord>;
  timer?: ReturnType<typeof setTimeout>;
  lastSent: number;
}

/** Options of a start or resume. */
export interface RunOptions {
  /** Production profiles need this (the app's typed confirmation, the CLI's --yes). */
  confirmProduction?: boolean;
  /** A re-delivery that removes fields delivered before needs this (after the diff is shown). */
  confirmRemovals?: boolean;
  /** Wait for another process holding the delivery instead of failing at once. */
  wait?: boolean;
  /** Resume an unfinished delivery of the same command instead of planning a new one (CLI). */
  resumeSameCommand?: boolean;
  /** Stops the run, keeping what is in the bucket for a resume (a quit, Ctrl-C). */
  signal?: AbortSignal;
}

/** Snapshots go out at most this often per run (state changes go out at once). */
const PROGRESS_INTERVAL_MS = 250;

/** The delivery service of one door. */
export class DeliveryService {
  readonly store: DeliveryStore;
  readonly #settings: SettingsStore;
  readonly #runs = new Map<string, RunState>();

  constructor(
    private readonly services: CoreServices,
    private readonly listeners: DeliveryListeners = {},
    /** How this door names itself to a process waiting for its lock. */
    private readonly holder = 'courier',
  ) {
    this.store = new DeliveryStore(services.dataDir);
    this.#settings = new SettingsStore(services.dataDir);
  }

  /**
   * Plans a delivery without any network call, with what the pre-flight would refuse that the
   * profile alone tells (a catalog it does not name) as a blocking finding.
   */
  async plan(request: DeliveryRequest, signal?: AbortSignal): Promise<PlannedDelivery> {
    const planned = await this.#plan(request, [], signal, { keepReads: false });
    const unknown = unknownCatalog(planned.profile, request.catalogId);
    if (unknown) {
      planned.plan.findings.unshift({
        level: 'error',
        field: 'catalog_id',
        message: unknown.message,
      });
      planned.plan.blocked = true;
      planned.unknownCatalog = unknown;
    }
    if (!planned.plan.blocked) {
      // What a start would send: only what differs from the catalog (hashing as a start does).
      const ledger = await this.#ledger(planned.profile.name, request.catalogId);
      await fingerprintPlan(planned.plan, signal, knownAudio(ledger));
      if (!planned.plan.blocked) {
        try {
          planned.plan = changesOnly(planned, ledger, request);
        } catch (error) {
          if (!(error instanceof NothingChangedError)) throw error;
          planned.plan.catalog = error.catalog;
          planned.nothingChanged = error;
        }
      }
      await this.#announce(planned.plan, planned.profile);
    }
    return planned;
  }

  #ledger(
    profile: string,
    catalogId: string,
    options: { withoutBodies?: boolean } = {},
  ): Promise<CatalogLedger> {
    return CatalogLedger.open(this.services.dataDir, profile, catalogId, options);
  }

  /** A reminder to announce a large ingestion (the interface asks for it), with a summary. */
  async #announce(plan: DeliveryPlan, profile: Profile): Promise<void> {
    const { announceAbove } = await this.#settings.get();
    const { record } = plan;
    const tracks =
      record.mode === 'json'
        ? (record.tracks ?? []).reduce((n, b) => n + b.length, 0)
        : record.files.length;
    const gib = record.bytes.total / 1024 ** 3;
    if (tracks < announceAbove.tracks && gib < announceAbove.gib) return;
    const catalog =
      profile.catalogs.find((c) => c.id === record.catalogId)?.name ?? record.catalogId;
    plan.findings.push({
      level: 'warning',
      message: `a large ingestion: the interface asks that it be announced to the provider beforehand; send them: "Catalog ${catalog} (${record.catalogId}): ${tracks} track(s), ${gib.toFixed(1)} GiB, ${record.mode} delivery planned for ${record.createdAt.slice(0, 10)} by Catalog Courier"`,
    });
  }

  /** The unfinished delivery a re-run of the same command would resume, if any. */
  async unfinishedOf(request: DeliveryRequest): Promise<DeliveryHeader | undefined> {
    if (request.source.kind !== 'folder') return undefined;
    return this.store.findUnfinished(identityOf(request, request.source.dir));
  }

  /**
   * Plans (or, with `resumeSameCommand`, finds the unfinished record of the same command), runs
   * the pre-flight and starts the delivery in the background. Throws `BlockedError` when
   * validation blocks it, and a `CourierError` for a permanent problem found before the first
   * byte is uploaded; `LockHeldError` when another process works on it.
   */
  async start(request: DeliveryRequest, options: RunOptions = {}): Promise<ActiveRun> {
    const profile = await this.services.profiles.get(request.profile);
    const dir = request.source.kind === 'folder' ? request.source.dir : undefined;
    const asked = new Date().toISOString();
    const identityLock = dir
      ? await this.#lock(`identity:${identityOf(request, dir)}`, 'This delivery', options)
      : undefined;
    try {
      // Resuming sends to production as much as starting does: both need the confirmation.
      if (profile.environment === 'production' && !options.confirmProduction) {
        throw new CourierError(
          'confirm_production',
          `"${profile.name}" is a production profile: confirm that you want to deliver to it.`,
        );
      }
      const existing = options.resumeSameCommand ? await this.unfinishedOf(request) : undefined;
      if (existing) {
        const replan = (record: DeliveryRecord) => this.#replanned(record, request, options.signal);
        return await this.#begin(existing, { ...options, identityLock, replan });
      }
      // The process that held this command while this one waited for it (--wait) may have
      // delivered it: that delivery is the one asked for, not a reason to send the folder again.
      const delivered =
        options.resumeSameCommand && dir
          ? await this.#acceptedSince(request, dir, asked)
          : undefined;
      if (delivered) {
        throw new CourierError(
          'finished',
          `Delivery ${delivered.id} was accepted by another Courier process in the meantime; nothing was sent again.`,
        );
      }
      let planned = await this.#plan(request, [], options.signal);
      if (planned.plan.blocked) throw new BlockedError(planned.plan);
      const connection = await this.#connect(profile.name);
      // A folder already holding files in the bucket belongs to another delivery: never reuse it.
      const s3 = createS3Client(connection.bucket);
      try {
        const inBucket = await audioFoldersInBucket(s3, connection.bucket.bucket);
        if (inBucket.includes(planned.plan.record.folder)) {
          planned = await this.#plan(request, inBucket, options.signal);
          if (planned.plan.blocked) throw new BlockedError(planned.plan);
        }
      } finally {
        s3.destroy();
      }
      const ledger = await this.#ledger(profile.name, request.catalogId);
      await fingerprintPlan(planned.plan, options.signal, knownAudio(ledger));
      if (planned.plan.blocked) throw new BlockedError(planned.plan);
      const plan = changesOnly(planned, ledger, request);
      const removals = plan.catalog?.removals ?? [];
      if (removals.length > 0 && !options.confirmRemovals) throw new RemovalsError(removals);
      await this.#announce(plan, profile);
      await preflight({ record: plan.record, connection, signal: options.signal });
      await this.store.save(plan.record); // persisted before any upload or ingestion
      return await this.#begin(plan.record, {
        ...options,
        identityLock,
        findings: plan.findings,
        planned: true,
      });
    } catch (error) {
      await identityLock?.release();
      throw error;
    }
  }

  /** Resumes an interrupted or failed delivery from its record (unpauses a running one). */
  async resume(id: string, options: RunOptions = {}): Promise<ActiveRun> {
    const running = this.#runs.get(id);
    if (running?.snapshot.running) {
      this.#setPaused(running, false);
      return running;
    }
    return this.#begin(await this.#unfinished(id, { header: true }), options);
  }

  /** Runs an ended delivery again for its failed files: `keys` chooses some (default: all). */
  async retry(id: string, keys?: string[], options: RunOptions = {}): Promise<ActiveRun> {
    if (this.#runs.get(id)?.snapshot.running) {
      throw new CourierError(
        'running',
        `Delivery ${id} is still running; retry its failed files once it has ended.`,
      );
    }
    const record = await this.#unfinished(id);
    const retryable = retryableKeys(record);
    const unknown = keys?.find((k) => !retryable.has(k));
    if (unknown !== undefined) {
      throw new CourierError(
        'not_failed',
        `${unknown} is not a failed file of delivery ${id}; only failed files can be retried.`,
      );
    }
    return this.#begin(record, { ...options, retryKeys: keys });
  }

  /** How many files a retry of `keys` (default: every failed one) takes on. */
  async retryCount(id: string, keys?: string[]): Promise<number> {
    const record = await this.store.load(id, { answers: false });
    return keys?.length ?? (record ? retryableKeys(record).size : 0);
  }

  /** Pauses a running delivery: the upload queue, and the ingest between requests. */
  pause(id: string): void {
    this.#setPaused(this.#active(id), true);
  }

  /** Cancels a running delivery: its multipart uploads are aborted (a stop keeps them). */
  async cancel(id: string): Promise<void> {
    const run = this.#active(id);
    run.snapshot.paused = false;
    run.queue?.cancel();
    run.controller.abort();
    run.gate.resume();
    await run.done;
  }

  /** Stops every run, keeping multipart uploads and journals so the next start resumes (quit). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((run) => this.#stop(run)));
  }

  /** Stops one run as a quit would. */
  async stop(id: string): Promise<void> {
    const run = this.#runs.get(id);
    if (run) await this.#stop(run);
  }

  /** The runs of this process, as the Transfers view shows them. */
  active(): TransferSnapshot[] {
    return [...this.#runs.values()].map((r) => snapshotView(r.snapshot));
  }

  /** The delivery of this command that ended accepted at or after `since` (ISO time), if any. */
  async #acceptedSince(
    request: DeliveryRequest,
    dir: string,
    since: string,
  ): Promise<DeliveryRecord | undefined> {
    const identity = identityOf(request, dir);
    const headers = await this.store.headers();
    const found = headers
      .reverse()
      .find(
        (r) => r.identity === identity && r.state === 'accepted' && (r.finishedAt ?? '') >= since,
      );
    return found && this.store.load(found.id, { answers: false });
  }

  /** Every recorded delivery, newest first, as History shows it. */
  async history(): Promise<DeliveryHistoryItem[]> {
    // Headers only: a 100,000-track delivery's files and tracks are not read to list it.
    const [records, nameOf] = await Promise.all([this.store.headers(), this.#catalogNames()]);
    return records
      .reverse()
      .map((r) => historyItem(r, this.#isRunning(r.id), nameOf(r.profile, r.catalogId)));
  }

  /**
   * One delivery's retries and a page of its requests with the service's answers, as History
   * shows them when the user opens it; `not_found` for an unknown delivery.
   */
  async detail(
    id: string,
    page: { offset?: number; limit?: number } = {},
  ): Promise<DeliveryDetail> {
    // The header holds every request, with its answer; files and track bodies are not read.
    const record = await this.store.loadHeader(id, { answers: true });
    if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
    return deliveryDetail(record, page);
  }

  /** Deliveries a quit, a crash or a failure left unfinished and not running here. */
  async unfinished(): Promise<DeliveryHistoryItem[]> {
    return (await this.history()).filter((d) => d.state !== 'accepted' && !d.running);
  }

  /** History as CSV (formula-safe). */
  async historyCsv(): Promise<string> {
    return historyCsv(await this.store.headers());
  }

  /** What is left of a delivery under its folder in the bucket. */
  async pickup(id: string) {
    const record = await this.store.load(id, { answers: false });
    if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
    const connection = await this.#connect(record.profile);
    const s3 = createS3Client(connection.bucket);
    try {
      return await pickupCheck(s3, connection.bucket.bucket, record);
    } finally {
      s3.destroy();
    }
  }

  /** The deliveries holding a track that matches `query` (ISRC, outer_id or title), newest first. */
  async search(
    query: string,
    options: Omit<SearchOptions, 'catalogName'> = {},
  ): Promise<HistorySearchResult> {
    return searchHistory(this.store.records({ newestFirst: true }), query, {
      ...options,
      catalogName: await this.#catalogNames(),
    });
  }

  /** One delivery's track, with its body as sent; `not_found` for an unknown delivery or track. */
  async deliveredTrack(id: string, outerId: string): Promise<DeliveredTrack> {
    const record = await this.store.load(id, { answers: false });
    if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
    return deliveredTrack(record, outerId);
  }

  /**
   * The record a re-run of the same command continues: as it was when its files are still what
   * was planned; otherwise planned again from the disk into the same folder (`replanRecord`),
   * blocked like a new plan when validation fails.
   */
  async #replanned(
    record: DeliveryRecord,
    request: DeliveryRequest,
    signal?: AbortSignal,
  ): Promise<DeliveryRecord> {
    const changed = await changedFiles(record);
    if (changed.length === 0) return record;
    const own = { ...request, folder: record.folder };
    const { plan } = await this.#plan(own, [], signal, { ownFolder: record.folder });
    if (!plan.blocked) await fingerprintPlan(plan, signal);
    if (plan.blocked) throw new BlockedError(plan);
    const replanned = replanRecord(
      record,
      plan.record,
      changed.map((f) => f.path),
    );
    await this.store.save(replanned, { full: true });
    return replanned;
  }

  async #plan(
    request: DeliveryRequest,
    extraTaken: string[],
    signal?: AbortSignal,
    options: {
      /** The folder of the record being planned again: not taken by "another" delivery. */
      ownFolder?: string;
      /** Keep the tags read for the next plan (`read-cache.ts`); a dry run writes nothing. */
      keepReads?: boolean;
    } = {},
  ): Promise<PlannedDelivery> {
    const { ownFolder, keepReads = true } = options;
    const profile = await this.services.profiles.get(request.profile);
    const source = request.source;
    let input: { dir: string; files: Parameters<typeof planDelivery>[0]['files'] };
    let tracks: Parameters<typeof planDelivery>[0]['tracks'];
    let findings: PlanFinding[];
    let idOfPath: Map<string, string> | undefined;
    let leftOut: LeftOutTrack[] = [];
    let leftOutLine: string | undefined;
    let localPaths: Set<string>;
    let reads: Map<string, MasterRead>;
    let accepted: Set<string>;
    if (source.kind === 'folder') {
      const prepared = await prepareDelivery({
        dir: source.dir,
        mode: request.mode,
        metadataCsv: source.metadataCsv,
        ...(source.metadataEncoding ? { metadataEncoding: source.metadataEncoding } : {}),
        download: source.download,
        reads: { dataDir: this.services.dataDir, keep: keepReads },
        signal,
      });
      input = { dir: source.dir, files: prepared.files };
      tracks = prepared.tracks;
      findings = prepared.findings;
      localPaths = new Set(prepared.files.map((f) => f.localPath));
      reads = prepared.reads;
      accepted = new Set((source.acceptCutShort ?? []).map((p) => p.normalize('NFC')));
    } else {
      // A reopened library's files may still be being checked: plan with what the checks found.
      await this.services.grants.checked();
      const entries: LibraryFile[] = source.files.map(
        ({ id, relativePath, draft, excluded, cleared, missing }) => ({
          id,
          relativePath,
          ...(missing ? { localPath: '', size: 0, unusable: GONE_REASON } : this.#grantOf(id)),
          ...(draft ? { draft } : {}),
          ...(excluded ? { excluded } : {}),
          ...(cleared?.length ? { cleared } : {}),
        }),
      );
      // Main reads the masters itself: what the renderer read may be stale, or not true. A file
      // it can't deliver (empty, not audio it reads) is left out, and the pre-flight says so.
      const listed = libraryInput(entries, false);
      reads = await readMasters(
        listed.dir,
        listed.files,
        { dataDir: this.services.dataDir, keep: keepReads },
        signal,
      );
      for (const file of listed.files) {
        const reason = unusableReason(file.size, reads.get(file.path));
        const entry = reason && entries.find((e) => e.id === listed.idOfPath.get(file.path));
        if (entry && !entry.excluded) entry.unusable = reason;
      }
      const library = libraryInput(entries, request.mode === 'json');
      input = library;
      tracks = library.tracks;
      findings = library.findings;
      idOfPath = library.idOfPath;
      leftOut = library.excluded;
      localPaths = library.localPaths;
      const unusable = leftOut.filter((t) => t.state === 'skipped');
      leftOutLine = leftOutFilesLine(unusable);
      if (leftOutLine) {
        findings = [
          { level: 'warning', message: leftOutLine },
          ...unusable.map((t): PlanFinding => ({
            level: 'warning',
            path: t.path,
            message: `not delivered: it ${t.reason}`,
          })),
        ];
      }
      const acceptedIds = new Set(source.files.filter((f) => f.acceptCutShort).map((f) => f.id));
      accepted = new Set(
        [...library.idOfPath].filter(([, id]) => acceptedIds.has(id)).map(([path]) => path),
      );
    }
    const rules = rulesFor(await new SettingsStore(this.services.dataDir).get(), profile.name);
    const checked = applyMasterChecks(
      checkMasters({ files: input.files, reads, accepted, rules, mode: request.mode }),
      tracks,
      findings,
    );
    // What reading each file gave is needed no further: a plan of 100,000 files holds the rest.
    reads.clear();
    tracks = checked.tracks;
    findings = checked.findings;
    if (request.skipInvalid) {
      const skipped = skipInvalid(request.mode, input.files, tracks, findings);
      input = { ...input, files: skipped.files };
      tracks = skipped.tracks;
      findings = skipped.findings;
      leftOut = [...leftOut, ...skipped.leftOut];
    }
    // Every recorded delivery's folder is taken (a resumed one is not planned again).
    const taken = new Set([
      ...(await this.store.headers())
        .filter((r) => r.bucket === profile.bucket.bucket_name)
        .map((r) => r.folder),
      ...extraTaken,
    ]);
    if (ownFolder !== undefined) taken.delete(ownFolder);
    const planInput: PlanInput = {
      profile: { name: profile.name, environment: profile.environment },
      bucket: profile.bucket.bucket_name,
      catalogId: request.catalogId,
      mode: request.mode,
      dir: input.dir,
      folder: request.folder,
      options: request.options ?? {},
      files: input.files,
      ...(request.mode === 'json' ? { tracks } : {}),
      ...(request.mapping ? { mapping: request.mapping } : {}),
      takenFolders: taken,
    };
    const plan = planDelivery(planInput);
    plan.findings.unshift(...findings);
    plan.blocked = plan.findings.some((f) => f.level === 'error');
    if (leftOut.length > 0 && input.files.length === 0 && !plan.blocked) {
      plan.findings.unshift({
        level: 'error',
        message: `every track is left out (${leftOut.length} excluded or skipped): nothing to deliver`,
      });
      plan.blocked = true;
    }
    return {
      plan,
      profile,
      input: planInput,
      leftOut,
      ...(leftOutLine ? { leftOutLine } : {}),
      localPaths,
      ...(idOfPath ? { idOfPath } : {}),
    };
  }

  #grantOf(id: string): { localPath: string; size: number; mtimeMs: number } {
    try {
      const granted = this.services.grants.get(id);
      return { localPath: granted.path, size: granted.size, mtimeMs: granted.mtimeMs };
    } catch {
      throw new CourierError(
        'not_granted',
        `A file of the library (${id}) is no longer available; add its folder again.`,
      );
    }
  }

  async #connect(profile: string): Promise<Connection> {
    return this.services.connections.get(profile);
  }

  async #lock(name: string, subject: string, options: RunOptions): Promise<ProcessLock> {
    return acquireProcessLock({
      dataDir: this.services.dataDir,
      name,
      what: this.holder,
      subject,
      ...(options.wait ? { wait: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /**
   * Starts a run of a record in the background, holding its lock until it ends. The record is
   * read whole here, once, under its lock; a record this call planned (`planned`) is used as it
   * is unless another process wrote it meanwhile.
   */
  async #begin(
    found: DeliveryHeader,
    options: RunOptions & {
      retryKeys?: string[];
      identityLock?: ProcessLock;
      /** Plans the record again, under its lock, when its files changed (a re-run). */
      replan?: (record: DeliveryRecord) => Promise<DeliveryRecord>;
      findings?: PlanFinding[];
      /** The record was planned by this call (not found on disk): its first run. */
      planned?: boolean;
    },
  ): Promise<ActiveRun> {
    let lock: ProcessLock;
    try {
      lock = await this.#lock(`delivery:${found.id}`, `Delivery ${found.id}`, options);
    } catch (error) {
      await options.identityLock?.release();
      throw error;
    }
    let record: DeliveryRecord;
    try {
      // What another process did while this one waited for the lock is on disk, not in memory.
      // A record held whole in memory is not read again while the disk has what it holds: at
      // 100,000 tracks a second copy of its files and track bodies is a hundred megabytes.
      const fresh =
        options.planned && found.files
          ? (await this.store.loadHeader(found.id))?.updatedAt === found.updatedAt
          : false;
      const loaded = fresh ? undefined : await this.store.load(found.id, { answers: false });
      if (!loaded && !found.files) {
        throw new CourierError('not_found', `No delivery ${found.id} in the history.`);
      }
      record = loaded ?? (found as DeliveryRecord);
      if (record.state === 'accepted') {
        throw new CourierError('finished', `Delivery ${record.id} is already accepted.`);
      }
      if (options.replan) record = await options.replan(record);
    } catch (error) {
      await Promise.all([lock.release(), options.identityLock?.release()]);
      throw error;
    }
    const catalogName = (await this.#catalogNames())(record.profile, record.catalogId);
    const label = `${record.folder} → ${catalogName}`;
    const { retryKeys } = options;
    const run: RunState = {
      id: record.id,
      resumed: !options.planned,
      record,
      snapshot: snapshotOf(record, label, catalogName, new Set(retryKeys ?? retryableKeys(record))),
      findings: options.findings ?? [],
      controller: new AbortController(),
      gate: new PauseGate(),
      lastSent: 0,
      done: Promise.resolve(record),
    };
    this.#runs.set(record.id, run);
    const { snapshot, controller } = run;
    const byKey = new Map(snapshot.files.map((f) => [f.key, f]));
    const feed = new ProgressFeed(snapshot);
    const sendNow = () => {
      if (run.timer) clearTimeout(run.timer);
      run.timer = undefined;
      run.lastSent = Date.now();
      this.listeners.progress?.(feed.next());
    };
    const sendProgress = () => {
      if (run.timer || !this.listeners.progress) return;
      const wait = Math.max(0, run.lastSent + PROGRESS_INTERVAL_MS - Date.now());
      run.timer = setTimeout(sendNow, wait);
      run.timer.unref?.();
    };
    const onEvent = (event: DeliveryEvent) => {
      this.listeners.event?.(record.id, label, event);
      applyEvent(snapshot, byKey, record, event, feed.changed);
      const paused =
        event.type === 'upload' &&
        (event.event.type === 'pausing' ||
          event.event.type === 'paused' ||
          event.event.type === 'resumed');
      if (paused || event.type === 'phase' || event.type === 'batch') this.#sendState(run);
      sendProgress();
    };
    const abort = () => void this.#stop(run);
    options.signal?.addEventListener('abort', abort, { once: true });
    run.done = (async () => {
      const uploadOptions = uploadOptionsOf(await this.#settings.get());
      try {
        const connection = await this.#connect(record.profile);
        snapshot.state = 'uploading';
        snapshot.running = true;
        this.#sendState(run);
        sendNow(); // the complete picture; every later event carries only what changed
        // The run only records what is accepted: the bodies it sent before stay on disk.
        const ledger = await this.#ledger(record.profile, record.catalogId, {
          withoutBodies: true,
        });
        return await runDelivery({
          record,
          store: this.store,
          ledger,
          api: connection.api,
          bucket: connection.bucket,
          dataDir: this.services.dataDir,
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
        await this.store.save(record).catch(() => undefined);
        onEvent({ type: 'finished', state: 'failed' });
        return record;
      }
    })().then(async (final) => {
      options.signal?.removeEventListener('abort', abort);
      applyFinal(snapshot, byKey, final, feed.changed);
      await this.services.log.log(final.state === 'accepted' ? 'info' : 'error', 'delivery run', {
        delivery: final.id,
        state: final.state,
        error: final.error,
      });
      if (this.listeners.progress) sendNow();
      this.#sendState(run);
      run.queue = undefined;
      await Promise.all([lock.release(), options.identityLock?.release()]);
      return final;
    });
    return run;
  }

  async #stop(run: RunState): Promise<void> {
    run.queue?.stop();
    run.controller.abort();
    run.gate.resume();
    await run.done;
  }

  #setPaused(run: RunState, paused: boolean): void {
    run.snapshot.paused = paused;
    if (paused) {
      run.queue?.pause();
      run.gate.pause();
    } else {
      run.snapshot.finishing = 0;
      run.queue?.resume();
      run.gate.resume();
    }
    this.#sendState(run);
  }

  #sendState(run: RunState): void {
    const { snapshot } = run;
    this.listeners.state?.({
      id: run.id,
      state: snapshot.state,
      paused: snapshot.paused,
      finishing: snapshot.finishing,
      running: snapshot.running,
      ...(snapshot.error ? { error: snapshot.error } : {}),
    });
  }

  #isRunning(id: string): boolean {
    return !!this.#runs.get(id)?.snapshot.running;
  }

  #active(id: string): RunState {
    const run = this.#runs.get(id);
    if (!run?.snapshot.running) {
      throw new CourierError('not_running', `Delivery ${id} is not running.`);
    }
    return run;
  }

  /** A record that can run again: in the history and not accepted yet (or its header). */
  async #unfinished(id: string): Promise<DeliveryRecord>;
  async #unfinished(id: string, options: { header: true }): Promise<DeliveryHeader>;
  async #unfinished(id: string, options?: { header: true }): Promise<DeliveryHeader> {
    const record = await (options
      ? this.store.loadHeader(id)
      : this.store.load(id, { answers: false }));
    if (!record) throw new CourierError('not_found', `No delivery ${id} in the history.`);
    if (record.state === 'accepted') {
      throw new CourierError('finished', `Delivery ${id} is already accepted; nothing to resume.`);
    }
    return record;
  }

  /** The catalog's name in its profile, or its id when the profile no longer names it. */
  async #catalogNames(): Promise<(profile: string, catalogId: string) => string> {
    const profiles = await this.services.profiles.list().catch(() => []);
    return (profile, catalogId) =>
      profiles.find((p) => p.name === profile)?.catalogs.find((c) => c.id === catalogId)?.name ||
      catalogId;
  }
}

/**
 * The audio the ledger knows, by the absolute path it was delivered from: that same file,
 * unchanged in size and mtime since, is not hashed again.
 */
function knownAudio(ledger: CatalogLedger): Map<string, FileFingerprint> {
  const known = new Map<string, FileFingerprint>();
  for (const e of ledger.entries()) {
    if (e.localPath && e.md5 && e.size !== undefined && e.mtimeMs !== undefined) {
      known.set(e.localPath, { size: e.size, mtimeMs: e.mtimeMs, md5: e.md5 });
    }
  }
  return known;
}

/**
 * The plan compared with the catalog: where every track stands (`plan.catalog`) and — unless
 * the request asks for everything (`all`) — only what differs, planned again into the same
 * folder; `NothingChangedError` when nothing does.
 */
function changesOnly(
  { plan, input, leftOut, localPaths }: PlannedDelivery,
  ledger: CatalogLedger,
  request: DeliveryRequest,
): DeliveryPlan {
  if (input.options?.media_fetch_type === 'download') return plan;
  const mapping = request.mapping;
  const changes = catalogChanges({
    mode: request.mode,
    files: plan.record.files,
    ...(input.tracks ? { tracks: input.tracks } : {}),
    nameOf: (file) => {
      const name = basename(file.path);
      const mapped = mapping ? applyFileNameMapping(name, mapping) : undefined;
      return mapped?.ok ? (mapped.values.outer_id ?? name) : name;
    },
    get: (outerId) => ledger.get(outerId),
    ...(request.all ? { all: true } : {}),
  });
  const catalog = catalogSummary({
    changes,
    leftOut,
    entries: ledger.entries(),
    under: input.dir,
    present: {
      paths: localPaths,
      ids: new Set([...changes.list, ...leftOut].map((t) => t.outer_id)),
    },
  });
  plan.catalog = catalog;
  const { counts } = changes;
  const goneFinding: PlanFinding[] = catalog.gone.length
    ? [
        {
          level: 'warning',
          message: goneText(catalog.gone),
        },
      ]
    : [];
  plan.findings.push(...goneFinding);
  // A first delivery to the catalog: every track is new, which the record need not repeat.
  if (ledger.size === 0) return plan;
  const keptFindings: PlanFinding[] = changes.kept.map((k) => ({
    level: 'warning',
    ...(k.path ? { path: k.path } : {}),
    message: `keeps ${k.fields.join(', ')} as delivery ${k.delivery} sent them: not given now, and the service would drop them (empty a field in the library to remove it)`,
  }));
  if (!request.all && counts.new + counts.audio + counts.metadata === 0) {
    throw new NothingChangedError(counts.unchanged, changes.latest, catalog);
  }
  if (counts.unchanged === 0 && counts.metadata === 0 && changes.kept.length === 0) {
    plan.record.changes = counts;
    return plan;
  }
  const fingerprints = new Map(plan.record.files.map((f) => [f.path, f]));
  const replanned = planDelivery({
    ...input,
    folder: plan.record.folder,
    files: changes.files.map((f) => withFields(f, fingerprints.get(f.path) ?? {})),
    ...(request.mode === 'json' ? { tracks: changes.tracks } : {}),
    metadataOnly: changes.metadataOnly,
  });
  replanned.record.identity = plan.record.identity;
  replanned.record.changes = counts;
  replanned.catalog = catalog;
  replanned.findings.unshift(...plan.findings.filter((f) => f.level !== 'error'), ...keptFindings);
  return replanned;
}

/**
 * Skip tracks with errors: the tracks (json) or files (folder modes) an error is about leave the
 * delivery, each listed as skipped with its first error; the errors about the delivery as a
 * whole still block it.
 */
function skipInvalid(
  mode: DeliveryMode,
  files: LocalFile[],
  tracks: PlannedTrack[] | undefined,
  findings: PlanFinding[],
): {
  files: LocalFile[];
  tracks: PlannedTrack[] | undefined;
  findings: PlanFinding[];
  leftOut: LeftOutTrack[];
} {
  const reasons = new Map<string, string>();
  for (const f of findings) {
    if (f.level === 'error' && f.path && !reasons.has(f.path)) reasons.set(f.path, f.message);
  }
  for (const t of mode === 'json' ? (tracks ?? []) : []) {
    const error = t.findings.find((f) => f.level === 'error');
    if (error && t.path && !reasons.has(t.path)) {
      reasons.set(t.path, `${error.field ? `${error.field}: ` : ''}${error.message}`);
    }
  }
  if (reasons.size === 0) return { files, tracks, findings, leftOut: [] };
  const leftOut: LeftOutTrack[] = [...reasons].map(([path, reason]) => {
    const track = tracks?.find((t) => t.path === path);
    return {
      path,
      outer_id: track?.track?.outer_id ?? basename(path),
      album: track?.album?.label ?? albumOf({ file: path }).label,
      state: 'skipped',
      reason,
    };
  });
  const first = leftOut[0]!;
  return {
    files: files.filter((f) => !reasons.has(f.path)),
    tracks: tracks?.filter((t) => !t.path || !reasons.has(t.path)),
    findings: [
      {
        level: 'warning',
        message: `${leftOut.length} track(s) with errors skipped, not delivered (first: ${first.path}: ${first.reason})`,
      },
      ...leftOut.map((t): PlanFinding => ({
        level: 'warning',
        path: t.path,
        message: `skipped: ${t.reason}`,
      })),
      ...findings.filter((f) => !(f.level === 'error' && f.path && reasons.has(f.path))),
    ],
    leftOut,
  };
}

/** The identity of "the same command": re-running it resumes its unfinished record. */
function identityOf(request: DeliveryRequest, dir: string): string {
  return deliveryIdentity({
    profile: request.profile,
    catalogId: request.catalogId,
    mode: request.mode,
    dir,
    folder: request.folder,
  });
}
