/**
 * The one contract between the renderer and the main side (Electron main, browser host).
 * Channel names are `domain:verb`; every request has a runtime schema that main checks before
 * anything runs; every result is an envelope, never a thrown error. Pure: bundled into the
 * preload and the renderer too.
 */
import * as v from 'valibot';

import { deliveryModes, DETAIL_PAGE_MAX } from '../core/delivery/delivery-summary.js';
import { LibraryPatchSchema } from '../core/library/library-patch.js';
import type { SentLoad } from '../core/library/sent-load.js';
import {
  DeliveryRulesSchema,
  DraftTrackSchema,
  LibrarySessionSchema,
  type StoredRow,
} from '../core/library/session-schema.js';
import { blobProof, PROOF_PATTERN, type ProvableBlob } from '../core/model/file-proof.js';
import { mappingFields } from '../core/model/filename-mapping.js';
import type { FileReadResult } from '../core/model/read-result.js';
import type { Settings } from '../core/settings/settings.js';
import type { UpdateState } from '../core/updates/update-state.js';

/** What a failed operation tells the renderer: a stable code and one human sentence. */
export interface ErrorInfo {
  code: string;
  message: string;
}

/** The result of every operation across the process boundary. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

/** The part of a DOM `File` the contract needs; a browser `File` satisfies it. */
export interface FileLike extends ProvableBlob {
  readonly name: string;
  readonly lastModified: number;
}

/** A file the user dropped or picked, with its path relative to what they dropped or picked. */
export interface PickedFile {
  file: FileLike;
  /** `Album/CD1/01.flac` for a file inside a picked folder, the bare name for a lone file. */
  relativePath: string;
  /**
   * The file's content proof, size and date, when the page has them already: the tags workers
   * compute the proof from the bytes they read for the tags, so each file is read once.
   */
  proven?: ProvenFile;
}

/** What the page read of a picked file: its proof (`file-proof.ts`), size and date. */
export interface ProvenFile {
  proof: string;
  size: number;
  lastModified: number;
}

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));

const FileRefSchema = v.strictObject({
  name: v.pipe(text(1024), v.minLength(1)),
  relativePath: text(4096),
  size: count,
  lastModified: count,
  /** Set by the Electron preload from `webUtils.getPathForFile`; absent in a browser. */
  path: v.optional(v.pipe(text(4096), v.minLength(1))),
  /** The content proof of the `File` (`core/model/file-proof.ts`): main checks it on disk. */
  proof: v.pipe(v.string(), v.regex(PROOF_PATTERN)),
});

/** A file the user dropped or picked, as it travels to main. */
export type FileRef = v.InferOutput<typeof FileRefSchema>;

const profileName = v.pipe(text(64), v.minLength(1));

/**
 * A catalog ledger, by profile and catalog (id, or name). Main looks both up among the saved
 * profiles before it opens a file, and the file's name encodes them: no name becomes a path.
 */
const LedgerRequestSchema = v.strictObject({
  profile: profileName,
  catalogId: v.pipe(text(128), v.minLength(1)),
});

/** A profile as the renderer edits it; core checks its meaning (https, bucket name…). */
const ProfileInputSchema = v.strictObject({
  name: profileName,
  environment: v.picklist(['development', 'staging', 'production']),
  base_url: text(2048),
  client_id: text(256),
  bucket: v.strictObject({
    bucket_name: text(63),
    bucket_region: text(32),
    endpoint: v.optional(text(2048)),
    access_key_id: text(128),
  }),
  catalogs: v.pipe(v.array(v.strictObject({ id: text(128), name: text(128) })), v.maxLength(500)),
});

const deliveryId = v.pipe(text(64), v.regex(/^[\w-]+$/));
const bucketKey = text(1024);
const objectRequest = v.strictObject({
  profile: profileName,
  key: v.pipe(bucketKey, v.minLength(1)),
});
const grantId = v.pipe(text(64), v.minLength(1));

/** What the Deliver view sends: the reviewed library, by grant id, and the choices made. */
const DeliveryInputSchema = v.strictObject({
  profile: profileName,
  catalogId: v.pipe(text(128), v.minLength(1)),
  mode: v.picklist(deliveryModes),
  folder: v.optional(v.pipe(text(256), v.minLength(1))),
  options: v.optional(
    v.strictObject({
      ingestion_id: v.optional(v.pipe(text(128), v.minLength(1))),
      overwrite_audio_file: v.optional(v.boolean()),
      delete_delivered_file: v.optional(v.boolean()),
    }),
  ),
  mapping: v.optional(
    v.strictObject({
      separator: v.pipe(text(16), v.minLength(1)),
      columns: v.pipe(v.array(v.picklist(mappingFields)), v.maxLength(16)),
      /** The column number of each field (`column_N`), when the mapping skips a part. */
      positions: v.optional(
        v.pipe(
          v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255))),
          v.maxLength(16),
        ),
      ),
      storage: v.optional(v.picklist(['file', 'content'])),
    }),
  ),
  /** Granted files (main resolves the paths); json mode carries each reviewed draft. */
  files: v.pipe(
    v.array(
      v.strictObject({
        id: v.pipe(text(64), v.minLength(1)),
        /** As dropped (`Album/01.flac`); names the key, checked by core like any key. */
        relativePath: v.pipe(text(4096), v.minLength(1)),
        draft: v.optional(DraftTrackSchema),
        /** Left out of this delivery by the user (counted in the pre-flight, not sent). */
        excluded: v.optional(v.boolean()),
        /** Body fields the user removed in review (core's `clearedFields`). */
        cleared: v.optional(v.pipe(v.array(text(64)), v.maxLength(64))),
        /** The user accepts this master cut short as it is (core's `withAcceptance`). */
        acceptCutShort: v.optional(v.boolean()),
        /** The file is gone or changed since it was added: left out, and the pre-flight says so. */
        missing: v.optional(v.boolean()),
      }),
    ),
    v.maxLength(200_000),
  ),
  /** Leave the tracks with errors out (listed as skipped) instead of blocking. */
  skipInvalid: v.optional(v.boolean()),
  /** Send the tracks the catalog already holds unchanged again too. */
  all: v.optional(v.boolean()),
});

/** Every operation: its channel and the schema its request must satisfy. */
export const operations = {
  appInfo: { channel: 'app:info', request: v.strictObject({}) },
  openLogs: { channel: 'app:openLogs', request: v.strictObject({}) },
  openDataFolder: { channel: 'app:openDataFolder', request: v.strictObject({}) },
  grantFiles: {
    channel: 'files:grant',
    request: v.strictObject({ files: v.pipe(v.array(FileRefSchema), v.maxLength(200_000)) }),
  },
  /** Tags of granted files read by main: for files the renderer has no `File` of (opened paths). */
  readFileTags: {
    channel: 'files:readTags',
    request: v.strictObject({
      files: v.pipe(
        v.array(v.strictObject({ id: grantId, relativePath: v.pipe(text(4096), v.minLength(1)) })),
        v.maxLength(1_000),
      ),
    }),
  },
  /** Files of the library whose audio is the same (tags and names aside), by grant id. */
  findDuplicateAudio: {
    channel: 'files:duplicates',
    request: v.strictObject({
      ids: v.pipe(v.array(grantId), v.maxLength(200_000)),
    }),
  },
  listProfiles: { channel: 'profiles:list', request: v.strictObject({}) },
  /** Makes a profile the active one for every window and host (`null`: none). */
  useProfile: {
    channel: 'profiles:use',
    request: v.strictObject({ name: v.nullable(v.pipe(v.string(), v.minLength(1))) }),
  },
  saveProfile: {
    channel: 'profiles:save',
    request: v.strictObject({
      profile: ProfileInputSchema,
      /** Write-only: secrets go to the keychain and never come back to the renderer. */
      secrets: v.optional(
        v.strictObject({
          client_secret: v.optional(text(4096)),
          secret_access_key: v.optional(text(4096)),
        }),
      ),
    }),
  },
  removeProfile: { channel: 'profiles:remove', request: v.strictObject({ name: profileName }) },
  testProfile: { channel: 'profiles:test', request: v.strictObject({ name: profileName }) },
  useSessionSecrets: { channel: 'secrets:useSession', request: v.strictObject({}) },
  listTags: {
    channel: 'tags:list',
    request: v.strictObject({
      profile: profileName,
      category_name: v.optional(text(128)),
      name: v.optional(text(256)),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000))),
    }),
  },
  planDelivery: { channel: 'deliveries:plan', request: DeliveryInputSchema },
  startDelivery: {
    channel: 'deliveries:start',
    request: v.strictObject({
      ...DeliveryInputSchema.entries,
      confirmProduction: v.optional(v.boolean()),
      /** The user saw the pre-flight's field-level diff and confirmed the removals. */
      confirmRemovals: v.optional(v.boolean()),
    }),
  },
  pauseDelivery: { channel: 'deliveries:pause', request: v.strictObject({ id: deliveryId }) },
  resumeDelivery: { channel: 'deliveries:resume', request: v.strictObject({ id: deliveryId }) },
  /** Runs an ended delivery again for its failed files: `keys` chooses some (default: all). */
  retryDelivery: {
    channel: 'deliveries:retry',
    request: v.strictObject({
      id: deliveryId,
      keys: v.optional(v.pipe(v.array(v.pipe(bucketKey, v.minLength(1))), v.maxLength(200_000))),
    }),
  },
  cancelDelivery: { channel: 'deliveries:cancel', request: v.strictObject({ id: deliveryId }) },
  /** History's list: one small item per delivery (no request, no answer). */
  listDeliveries: { channel: 'deliveries:list', request: v.strictObject({}) },
  /** One delivery opened in History: its retries and a page of its requests with the answers. */
  deliveryDetail: {
    channel: 'deliveries:detail',
    request: v.strictObject({
      id: deliveryId,
      offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000))),
      limit: v.optional(
        v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(DETAIL_PAGE_MAX)),
      ),
    }),
  },
  activeDeliveries: { channel: 'deliveries:active', request: v.strictObject({}) },
  unfinishedDeliveries: { channel: 'deliveries:unfinished', request: v.strictObject({}) },
  exportDeliveriesCsv: { channel: 'deliveries:exportCsv', request: v.strictObject({}) },
  pickupDelivery: { channel: 'deliveries:pickup', request: v.strictObject({ id: deliveryId }) },
  listBucket: {
    channel: 'bucket:list',
    request: v.strictObject({ profile: profileName, prefix: bucketKey }),
  },
  readBucketObject: { channel: 'bucket:read', request: objectRequest },
  /** Saves an object to a file main asks the user for (the renderer never names a path). */
  saveBucketObject: { channel: 'bucket:save', request: objectRequest },
  cancelBucketSave: { channel: 'bucket:cancelSave', request: objectRequest },
  deleteBucketObject: { channel: 'bucket:delete', request: objectRequest },
  getSettings: { channel: 'settings:get', request: v.strictObject({}) },
  setSettings: {
    channel: 'settings:set',
    request: v.strictObject({
      concurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64))),
      bandwidthLimitKiB: v.optional(
        v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000_000)),
      ),
      defaults: v.optional(
        v.strictObject({
          mode: v.optional(v.picklist(deliveryModes)),
          overwrite_audio_file: v.optional(v.boolean()),
          delete_delivered_file: v.optional(v.boolean()),
        }),
      ),
      /** Saves (null: forgets) the options a new delivery on one profile starts from. */
      profileDefaults: v.optional(
        v.strictObject({
          profile: profileName,
          defaults: v.nullable(
            v.strictObject({
              mode: v.picklist(deliveryModes),
              overwrite_audio_file: v.boolean(),
              delete_delivered_file: v.boolean(),
            }),
          ),
        }),
      ),
      /** Saves (null: resets to the defaults) the masters rules of one profile. */
      profileRules: v.optional(
        v.strictObject({ profile: profileName, rules: v.nullable(DeliveryRulesSchema) }),
      ),
    }),
  },
  loadLibrary: { channel: 'library:load', request: v.strictObject({}) },
  /** The next rows of a loaded library (`library:load` sends the first page only). */
  libraryRows: {
    channel: 'library:rows',
    request: v.strictObject({
      load: v.pipe(v.string(), v.maxLength(64)),
      offset: v.pipe(v.number(), v.integer(), v.minValue(0)),
    }),
  },
  /** Makes the larger library kept before the last shrinking save (Clear) the current one. */
  restorePreviousLibrary: { channel: 'library:restore-previous', request: v.strictObject({}) },
  saveLibrary: {
    channel: 'library:save',
    request: v.strictObject({ session: LibrarySessionSchema }),
  },
  /** Saves what changed since the last save (rows by id), not the whole library. */
  patchLibrary: {
    channel: 'library:patch',
    request: v.strictObject({ patch: LibraryPatchSchema }),
  },
  /** History's search: the deliveries holding a track with this ISRC, outer_id or title words. */
  searchDeliveries: {
    channel: 'deliveries:search',
    request: v.strictObject({ query: v.pipe(text(256), v.minLength(1)) }),
  },
  /** One track of a recorded delivery, with its body as sent. */
  deliveredTrack: {
    channel: 'deliveries:track',
    request: v.strictObject({ id: deliveryId, outer_id: v.pipe(text(1024), v.minLength(1)) }),
  },
  /** What a profile's catalog holds from this workstation (the catalog ledger). */
  catalogLedger: { channel: 'ledger:view', request: LedgerRequestSchema },
  /** The same, every row, as CSV for the renderer to download. */
  exportLedgerCsv: { channel: 'ledger:exportCsv', request: LedgerRequestSchema },
  /** Where the update prompt stands (the app checks at start-up; other doors don't update). */
  updateState: { channel: 'updates:state', request: v.strictObject({}) },
  /** "Check for updates": also shows a version put off with Later. */
  checkForUpdates: { channel: 'updates:check', request: v.strictObject({}) },
  /** "Download and install": the user's word; nothing is downloaded without it. */
  downloadUpdate: { channel: 'updates:download', request: v.strictObject({}) },
  /** "Later": quiet about this version until a newer one. */
  postponeUpdate: { channel: 'updates:later', request: v.strictObject({}) },
  /** "Restart to install": quits and installs the downloaded release. */
  installUpdate: { channel: 'updates:install', request: v.strictObject({}) },
} as const;

export type OperationName = keyof typeof operations;
export type Channel = (typeof operations)[OperationName]['channel'];
export type RequestOf<N extends OperationName> = v.InferOutput<(typeof operations)[N]['request']>;

/** What `app:info` returns. */
export interface AppInfo {
  name: string;
  productName: string;
  version: string;
  /** Which door the renderer came through. */
  host: 'electron' | 'web';
  platform: string;
  dataDir: string;
}

/** Where a folder of the data directory is, and whether main opened it in the file manager. */
export interface FolderOpened {
  path: string;
  /** False in the browser host, which shows the path instead of opening windows on the machine. */
  opened: boolean;
}

/** A file main may now read: the renderer refers to it by `id` from then on. */
export interface GrantedFile {
  id: string;
  name: string;
  relativePath: string;
  size: number;
}

export interface GrantResult {
  granted: GrantedFile[];
  refused: Array<{ relativePath: string; reason: string }>;
}

/**
 * What `library:load` returns: the saved session's first rows (the rest by `library:rows`), at
 * once, before its files are checked; what the checks find follows as `library:files-checked`.
 */
export type { SentLoad };

/** A profile as the renderer sees it: everything but the secrets, which are only set or not. */
export interface ProfileSummary {
  name: string;
  environment: 'development' | 'staging' | 'production';
  base_url: string;
  client_id: string;
  bucket: { bucket_name: string; bucket_region: string; endpoint?: string; access_key_id: string };
  catalogs: Array<{ id: string; name: string }>;
  sandbox: boolean;
  /** Set or not for the profile's address; `keychain` says why the keychain could not be read. */
  secrets: { client_secret: boolean; secret_access_key: boolean; keychain?: string };
}

export interface ProfileList {
  profiles: ProfileSummary[];
  /** The active profile's name, kept in main (null: none chosen yet). */
  active: string | null;
  /** Where secrets are kept in this run. */
  secretStorage: 'keychain' | 'memory';
  /** Profiles in profiles.json that can't be used as written (edited by hand), and why. */
  invalid: Array<{ name: string; message: string }>;
}

/** One check of "Test connection". */
export interface ConnectionCheck {
  id: 'token' | 'tags' | 'bucket_list' | 'bucket_write';
  label: string;
  ok: boolean;
  detail: string;
  hint?: string;
  ms: number;
}

export interface TagList {
  tags: Array<{ id: string; name: string; category: { id: string; name: string } }>;
  total: number;
  complete: boolean;
}

/** One finding of a delivery plan; `fileId` points back at the library row. */
export interface PlanFindingView {
  level: 'error' | 'warning';
  message: string;
  path?: string;
  field?: string;
  fileId?: string;
  /** The album it is about, for a finding about a whole album (said once). */
  album?: string;
}

/** Where one library row stands for a delivery: against the catalog, or left out. */
export interface TrackStandingView {
  fileId?: string;
  path?: string;
  outer_id: string;
  state: TrackStanding;
  /** Fields that differ from what the catalog holds. */
  fields: string[];
  /** Fields the catalog holds that this delivery removes (asked before sending). */
  removed: string[];
  delivered?: { delivery: string; at: string };
  reason?: string;
}

/** The pre-flight summary of a delivery. */
export interface DeliveryPlanView {
  profile: { name: string; environment: string };
  catalog: { id: string; name: string };
  mode: DeliveryMode;
  folder: string;
  files: number;
  /** The library files not delivered and why ("1 file left out: 03 Empty.mp3 is empty (0 bytes)"). */
  leftOut?: string;
  tracks: number;
  bytes: number;
  requests: number;
  options: {
    ingestion_id: string;
    overwrite_audio_file: boolean;
    delete_delivered_file: boolean;
    media_fetch_type: 's3' | 'download';
  };
  mappingYaml?: string;
  findings: PlanFindingView[];
  blocked: boolean;
  production: boolean;
  /** Against the catalog's ledger (absent when validation blocks the plan). */
  standing?: {
    counts: Record<TrackStanding, number>;
    albums: Array<{ album: string } & Record<TrackStanding, number>>;
    tracks: TrackStandingView[];
    gone: Array<{ outer_id: string; path?: string; delivery: string; at: string }>;
    removals: Array<{
      outer_id: string;
      path?: string;
      fileId?: string;
      fields: string[];
      /** What each removed field held, as delivered (short JSON). */
      was: Record<string, string>;
    }>;
  };
  /** The first request's body as it will be sent (json), pretty-printed. */
  sample?: string;
  /** Set when artists are sent with their names as ids: the pre-flight's line saying so. */
  artistIds?: string;
  /** Set when nothing differs from the catalog: nothing would be sent. */
  nothingChanged?: string;
}

export type { TrackStanding } from '../core/delivery/catalog-changes.js';
export type { DeliveryMode } from '../core/delivery/delivery-summary.js';
import type { TrackStanding } from '../core/delivery/catalog-changes.js';
import type { DeliveryMode } from '../core/delivery/delivery-summary.js';
export type {
  DeliveryDetail,
  DeliveryHistoryItem,
  DeliveryRequestView,
} from '../core/delivery/history-item.js';
export type {
  TransferFileState,
  TransferProgress,
  TransferSnapshot,
} from '../core/delivery/transfer-snapshot.js';
import type { DeliveryDetail, DeliveryHistoryItem } from '../core/delivery/history-item.js';
import type { TransferProgress, TransferSnapshot } from '../core/delivery/transfer-snapshot.js';

/** What the §2.6 table says about an area of the bucket. */
export type BucketAccess = 'read-write' | 'read-only' | 'not stated';

export interface BucketListingView {
  prefix: string;
  access: BucketAccess;
  folders: Array<{ prefix: string; access: BucketAccess }>;
  objects: Array<{ key: string; size: number; lastModified: string; access: BucketAccess }>;
  truncated: boolean;
}

/**
 * How a save ended: written where the user chose, or canceled in the save dialog (the app); or,
 * in the browser host, a one-time address for the browser's own download to fetch.
 */
export type BucketSaveResult =
  | { key: string; outcome: 'saved'; path: string; size: number }
  | { key: string; outcome: 'canceled' }
  | { key: string; outcome: 'browser'; url: string };

/** A file the OS handed the running app (second launch, dock drop), granted by main. */
export interface OpenedFile extends GrantedFile {
  lastModified: number;
}

/** The app's settings (`<dataDir>/settings.json`). */
export type SettingsView = Settings;

export type { DeliveredTrack } from '../core/delivery/delivered-tracks.js';
export type {
  DeliveryMatch,
  HistorySearchResult,
  SearchReading,
  TrackMatch,
} from '../core/delivery/history-search.js';
export type { CatalogLedgerView, LedgerRow } from '../core/ledger/ledger-view.js';
export type { UpdateOffer, UpdateState } from '../core/updates/update-state.js';
import type { DeliveredTrack } from '../core/delivery/delivered-tracks.js';
import type { HistorySearchResult } from '../core/delivery/history-search.js';
import type { CatalogLedgerView } from '../core/ledger/ledger-view.js';

interface Results {
  appInfo: AppInfo;
  openLogs: FolderOpened;
  openDataFolder: FolderOpened;
  grantFiles: GrantResult;
  readFileTags: { results: Array<{ id: string; result: FileReadResult }> };
  findDuplicateAudio: {
    /** Groups of grant ids whose audio is identical (two or more each). */
    groups: string[][];
    /** Files that could not be compared, and why. */
    unreadable: Array<{ id: string; message: string }>;
    /** Bytes of audio read. */
    bytes: number;
  };
  listProfiles: ProfileList;
  useProfile: { active: string | null };
  saveProfile: ProfileSummary;
  removeProfile: { removed: true };
  testProfile: { profile: string; ok: boolean; checks: ConnectionCheck[] };
  useSessionSecrets: { secretStorage: 'memory' };
  listTags: TagList;
  loadLibrary: SentLoad;
  libraryRows: { rows: StoredRow[] };
  restorePreviousLibrary: SentLoad;
  saveLibrary: { saved: true };
  patchLibrary: { saved: true };
  planDelivery: DeliveryPlanView;
  startDelivery: { id: string };
  pauseDelivery: { id: string; paused: boolean };
  resumeDelivery: { id: string; paused: boolean };
  retryDelivery: { id: string; files: number };
  cancelDelivery: { id: string; canceled: boolean };
  listDeliveries: { deliveries: DeliveryHistoryItem[] };
  deliveryDetail: DeliveryDetail;
  activeDeliveries: { transfers: TransferSnapshot[] };
  unfinishedDeliveries: { deliveries: DeliveryHistoryItem[] };
  exportDeliveriesCsv: { fileName: string; csv: string };
  pickupDelivery: { id: string; pickedUp: boolean; remaining: string[] };
  listBucket: BucketListingView;
  readBucketObject: { key: string; size: number; text: string; truncated: boolean };
  saveBucketObject: BucketSaveResult;
  cancelBucketSave: { canceled: boolean };
  deleteBucketObject: { deleted: true };
  getSettings: SettingsView;
  setSettings: SettingsView;
  searchDeliveries: HistorySearchResult;
  deliveredTrack: { id: string; track: DeliveredTrack };
  catalogLedger: CatalogLedgerView;
  exportLedgerCsv: { fileName: string; csv: string; rows: number };
  updateState: UpdateState;
  checkForUpdates: UpdateState;
  downloadUpdate: UpdateState;
  postponeUpdate: UpdateState;
  installUpdate: UpdateState;
}

export type ResultOf<N extends OperationName> = Results[N];

/** Events main pushes to the renderer, by name, with their payloads. */
export interface EventPayloads {
  'app:notice': { level: 'info' | 'warning' | 'error'; message: string };
  /** The menu asks for a view (Preferences… shows Settings). */
  'app:navigate': { view: 'settings' | 'library' };
  /** Files the OS handed the app (second launch, dock drop): granted, for the library. */
  'library:open-paths': {
    files: OpenedFile[];
    refused: Array<{ relativePath: string; reason: string }>;
  };
  /** How far "Find duplicate audio" has come. */
  'library:duplicates-progress': { phase: 'locating' | 'hashing'; done: number; total: number };
  /**
   * A reopened library's files checked against the disk, batch by batch: the rows whose file is
   * gone or changed since it was added, and how far the checks have come.
   */
  'library:files-checked': { load: string; missing: string[]; checked: number; total: number };
  /** How far a save of a bucket object has come. */
  'bucket:save-progress': { key: string; receivedBytes: number; totalBytes: number };
  /** A running delivery's figures and what changed, at most a few times a second. */
  'delivery:progress': TransferProgress;
  /** A delivery started, paused (pausing with `finishing` requests, then paused), resumed or ended. */
  /** The update prompt moved (a check ended, a download progressed, an install is ready). */
  'updates:state': UpdateState;
  'delivery:state': {
    id: string;
    state: TransferSnapshot['state'];
    paused: boolean;
    /** Requests still in flight since the pause (see TransferSnapshot.finishing). */
    finishing: number;
    running: boolean;
    error?: string;
  };
}

export type EventName = keyof EventPayloads;

/** Every event name, for the doors that must refuse any other. */
export const eventNames: readonly EventName[] = [
  'app:notice',
  'app:navigate',
  'library:open-paths',
  'bucket:save-progress',
  'library:duplicates-progress',
  'library:files-checked',
  'delivery:progress',
  'delivery:state',
  'updates:state',
];

/** Operations whose renderer-side signature differs from their wire request. */
type SpecialOperations = 'grantFiles';

/**
 * The API the renderer sees, identical whether the preload or the WebSocket provides it:
 * one named method per operation, plus `on` for events (it returns the unsubscribe).
 */
export type CourierApi = {
  [N in Exclude<OperationName, SpecialOperations>]: (
    request: RequestOf<N>,
  ) => Promise<Envelope<ResultOf<N>>>;
} & {
  /** Hands dropped or picked files to main, which checks them and grants access by id. */
  grantFiles(files: readonly PickedFile[]): Promise<Envelope<GrantResult>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
};

/** Files whose content proofs are computed at once (each reads up to 128 KiB). */
const PROOFS_AT_ONCE = 8;

/**
 * Hands dropped or picked files to main (`files:grant`) the one way both doors share: each with
 * its content proof (the one the page computed already, or computed here a few files at a
 * time); `pathOf` gives a file's path where the door can know it (the Electron preload). A file
 * the page can no longer read (moved or deleted since the drop) is refused here, with the
 * reason, and never sent.
 */
export async function grantPickedFiles(
  files: readonly PickedFile[],
  invoke: (request: RequestOf<'grantFiles'>) => Promise<Envelope<GrantResult>>,
  pathOf: (file: FileLike) => string | undefined = () => undefined,
): Promise<Envelope<GrantResult>> {
  const refs: Array<FileRef | undefined> = new Array(files.length);
  const unreadable: GrantResult['refused'] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      const { file, relativePath, proven } = files[index]!;
      const name = relativePath || file.name;
      try {
        const ref: FileRef = {
          name: file.name,
          relativePath: name,
          size: proven?.size ?? file.size,
          lastModified: Math.trunc(proven?.lastModified ?? file.lastModified),
          proof: proven?.proof ?? (await blobProof(file)),
        };
        const path = pathOf(file);
        if (path) ref.path = path;
        refs[index] = ref;
      } catch (error) {
        unreadable.push({
          relativePath: name,
          reason: `the page could not read it (${error instanceof Error ? error.message : String(error)})`,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROOFS_AT_ONCE, files.length) }, worker));
  const sent = refs.filter((ref): ref is FileRef => ref !== undefined);
  if (sent.length === 0) return ok({ granted: [], refused: unreadable });
  const result = await invoke({ files: sent });
  if (!result.ok || unreadable.length === 0) return result;
  return ok({ ...result.value, refused: [...result.value.refused, ...unreadable] });
}

const channelToOperation = new Map<string, OperationName>(
  Object.entries(operations).map(([name, op]) => [op.channel, name as OperationName]),
);

/** The operation a channel names, or undefined for a channel the contract does not have. */
export function operationOf(channel: string): OperationName | undefined {
  return channelToOperation.get(channel);
}

/** Checks a request against its operation's schema; the issue names the field at fault. */
export function parseRequest<N extends OperationName>(
  name: N,
  raw: unknown,
): { ok: true; request: RequestOf<N> } | { ok: false; message: string } {
  // Valibot takes an array for an object with no required field; a request is never one.
  if (Array.isArray(raw)) {
    return { ok: false, message: `${operations[name].channel}: request: expected an object` };
  }
  const result = v.safeParse(operations[name].request, raw ?? {});
  if (result.success) return { ok: true, request: result.output as RequestOf<N> };
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join('.') || 'request';
  return { ok: false, message: `${operations[name].channel}: ${path}: ${issue.message}` };
}

/** Wraps a value as a successful envelope. */
export const ok = <T>(value: T): Envelope<T> => ({ ok: true, value });

/** Wraps an error code and message as a failed envelope. */
export const fail = (code: string, message: string): Envelope<never> => ({
  ok: false,
  error: { code, message },
});
