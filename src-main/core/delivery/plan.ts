/**
 * Planning a delivery: validation (blocking errors stop it before any network call), the
 * delivery folder, the bucket keys, the JSON batches of ≤ 25 tracks, the mapping checks. Pure:
 * everything it needs (files, tracks, folders already used) is passed in.
 */
import { basename } from 'node:path';

import { albumOf } from '../model/albums.js';
import { fileKind, unsupportedAudioMessage } from '../model/audio-formats.js';
import {
  applyFileNameMapping,
  type FileNameMapping,
  mappingProblem,
  mappingToYaml,
  unfitFileNames,
} from '../model/filename-mapping.js';
import { draftToTrack, maxTracksPerRequest, type TrackBody } from '../model/ingestion-body.js';
import type { DraftTrack, Finding, Track } from '../model/track.js';
import { quoted } from '../model/user-text.js';
import { withFields } from '../objects.js';
import { AUDIO_ROOT, deliveryKey } from '../storage/object-key.js';
import type { CatalogSummary } from './catalog-changes.js';
import {
  type DeliveryBatch,
  type DeliveryFile,
  deliveryIdentity,
  type DeliveryMapping,
  type DeliveryMode,
  type DeliveryOptions,
  type DeliveryRecord,
  newDeliveryId,
} from './delivery-record.js';

/** A finding of the plan: blocking errors stop the delivery; warnings are shown. */
export interface PlanFinding extends Finding {
  /** The file (relative path) it is about, when it is about one. */
  path?: string;
  /** The album it is about, when it is about a whole album (`album-review.ts`): said once. */
  album?: string;
}

/** One local audio file. */
export interface LocalFile {
  /** Relative to the delivery's folder on disk, forward slashes. */
  path: string;
  localPath: string;
  size: number;
  /** When the file was last modified, as listed at planning (a change afterwards is caught). */
  mtimeMs?: number;
}

/** The identity of a track's audio file, as the ledger keeps it. */
export interface PlannedAudio {
  path: string;
  localPath: string;
  size: number;
  mtimeMs?: number;
  md5?: string;
}

/** One track of a json delivery, with the findings of its file. */
export interface PlannedTrack {
  /** The file it comes from (relative path); absent for download deliveries. */
  path?: string;
  track: TrackBody | null;
  findings: Finding[];
  /** The album it belongs to (`albumOf`), for the pre-flight's counts per album. */
  album?: { key: string; label: string };
  /** Body fields a person removed in review (`clearedFields`): not kept from before. */
  cleared?: string[];
}

/**
 * A planned track from its reviewed draft: its body (`draftToTrack`, unless the review made it
 * already), findings, album and removed fields.
 */
export function plannedTrack(
  path: string,
  draft: DraftTrack,
  findings: Finding[],
  cleared: string[] = [],
  body: TrackBody = draftToTrack(draft),
): PlannedTrack {
  return {
    path,
    track: body,
    findings,
    album: albumOf(draft),
    ...(cleared.length > 0 ? { cleared } : {}),
  };
}

/** What a plan is made from. */
export interface PlanInput {
  profile: { name: string; environment: string };
  bucket: string;
  catalogId: string;
  mode: DeliveryMode;
  /** Absolute folder on disk. */
  dir: string;
  /** The folder asked for (`--folder`); else one is chosen from the date and the folder name. */
  folder?: string;
  options?: Partial<DeliveryOptions>;
  files: LocalFile[];
  /** json mode: one per file (or per URL for download), from tags and metadata. */
  tracks?: PlannedTrack[];
  mapping?: FileNameMapping & { storage?: 'file' | 'content'; name?: string };
  /** Folders under delivery/audio/ already holding other deliveries' files. */
  takenFolders?: ReadonlySet<string>;
  /**
   * json: tracks whose audio the catalog already holds and whose metadata changed. They are sent
   * with overwrite_audio_file=false and no upload; `primary_media` is the path the audio was
   * delivered under (the service keeps that audio and does not read it again).
   */
  metadataOnly?: Array<{ track: Track; audio: PlannedAudio }>;
  now?: Date;
}

/** A planned delivery: the record to persist, and what the user must know first. */
export interface DeliveryPlan {
  record: DeliveryRecord;
  findings: PlanFinding[];
  blocked: boolean;
  /** Where each track stands against the catalog (set once compared with its ledger). */
  catalog?: CatalogSummary;
}

/** YYYYMMDD of a date (UTC). */
function day(now: Date): string {
  return now.toISOString().slice(0, 10).replaceAll('-', '');
}

/** A short, key-safe name from a folder name. */
export function shortName(dir: string): string {
  const slug = basename(dir)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return slug || 'delivery';
}

/** The default folder: `<YYYYMMDD>-<short name>`, suffixed `-2`, `-3`… when already used. */
export function chooseFolder(dir: string, now: Date, taken: ReadonlySet<string>): string {
  const base = `${day(now)}-${shortName(dir)}`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** The interface's defaults (4.3–4.5), with `ingestion_id` one per day (the advised grouping). */
export function defaultOptions(now: Date, given: Partial<DeliveryOptions> = {}): DeliveryOptions {
  return {
    ingestion_id: given.ingestion_id ?? `courier-${day(now)}`,
    overwrite_audio_file: given.overwrite_audio_file ?? true,
    delete_delivered_file: given.delete_delivered_file ?? true,
    media_fetch_type: given.media_fetch_type ?? 's3',
  };
}

/** Splits items into groups of at most `size`. */
export function chunk<T>(items: T[], size = maxTracksPerRequest): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const isUrl = (value: string | undefined) => /^https?:\/\//i.test(value ?? '');

/** What tells two findings apart: the same level, place and words are one finding. */
function findingKey(f: PlanFinding): string {
  return JSON.stringify([f.level, f.path ?? '', f.album ?? '', f.field ?? '', f.message]);
}

/** Builds the plan of a delivery. Nothing here touches the disk or the network. */
export function planDelivery(input: PlanInput): DeliveryPlan {
  const now = input.now ?? new Date();
  const options = defaultOptions(now, input.options);
  const findings: PlanFinding[] = [];
  const block = (message: string, path?: string, field?: string) =>
    findings.push({
      level: 'error',
      message,
      ...(path ? { path } : {}),
      ...(field ? { field } : {}),
    });

  let folder = input.folder?.trim().replace(/^\/+|\/+$/g, '') ?? '';
  if (input.folder !== undefined) {
    try {
      deliveryKey(folder, 'x');
    } catch (error) {
      block((error as Error).message);
      folder = 'invalid-folder';
    }
    if (input.takenFolders?.has(folder)) {
      block(
        `the folder ${AUDIO_ROOT}${folder}/ already holds another delivery's files; choose another --folder`,
      );
    }
  } else {
    folder = chooseFolder(input.dir, now, input.takenFolders ?? new Set());
  }

  const download = input.mode === 'json' && options.media_fetch_type === 'download';
  const flat = input.mode !== 'json';
  const files: DeliveryFile[] = [];
  const keyOf = new Map<string, string>();
  // Files whose name can't be a key: already reported once, their tracks are not again.
  const unnamed = new Set<string>();
  if (!download) {
    // Names are compared in NFC: macOS and Windows write the same name decomposed or composed,
    // and both become one key. A folder call takes files flat, so there the base name counts.
    const byName = new Map<string, string[]>();
    for (const file of input.files) {
      const nfcPath = file.path.normalize('NFC');
      const name = flat ? basename(nfcPath) : nfcPath;
      // The two names print alike: say which one is written decomposed on disk.
      const onDisk = basename(file.localPath);
      const shown = onDisk === onDisk.normalize('NFC') ? file.path : `${file.path} (decomposed)`;
      byName.set(name, [...(byName.get(name) ?? []), shown]);
      let key: string;
      try {
        key = deliveryKey(folder, name);
      } catch (error) {
        block((error as Error).message, file.path);
        unnamed.add(nfcPath);
        continue;
      }
      if (file.size === 0) block('empty file (0 bytes)', file.path);
      if (flat && fileKind(nfcPath) === 'unsupported-audio') {
        block(unsupportedAudioMessage, file.path);
      }
      keyOf.set(nfcPath, key);
      files.push(withFields(file, { key, state: 'pending' as const }));
    }
    for (const [name, paths] of byName) {
      if (paths.length < 2) continue;
      const where = flat
        ? 'files go flat into the delivery folder and the file name is the outer_id'
        : 'they would be one object in the bucket (names are compared in Unicode NFC)';
      block(
        `${paths.map((p) => quoted(p)).join(' and ')} share the name ${quoted(name)}: ${where}; rename one`,
        paths[0]!.replace(/ \(decomposed\)$/, ''),
      );
    }
    if (input.files.length === 0 && !input.metadataOnly?.length) {
      block(`no audio file found in ${input.dir}`);
    }
  }

  let mapping: DeliveryMapping | undefined;
  if (input.mode === 'audio_mapping') {
    if (!input.mapping)
      block('audio_mapping needs a mapping (--mapping FILE, or --separator and --columns)');
    else {
      const problem = mappingProblem(input.mapping);
      if (problem) block(`the mapping is unusable: ${problem}`);
      else {
        for (const unfit of unfitFileNames(
          input.files.map((f) => basename(f.path)),
          input.mapping,
        )) {
          block(`the file name does not fit the mapping: ${unfit.message}`, unfit.path);
        }
        const byOuterId = new Map<string, string[]>();
        for (const file of input.files) {
          const match = applyFileNameMapping(basename(file.path), input.mapping);
          const outerId = match.ok ? match.values.outer_id : undefined;
          if (outerId) byOuterId.set(outerId, [...(byOuterId.get(outerId) ?? []), file.path]);
        }
        for (const [outerId, paths] of byOuterId) {
          if (paths.length < 2) continue;
          block(
            `outer_id ${quoted(outerId)} is given to ${paths.length} files by the mapping (${paths.map((p) => quoted(p)).join(', ')}): the service would keep only one; rename one`,
            paths[0],
          );
        }
      }
      const storage = input.mapping.storage ?? 'file';
      mapping = {
        separator: input.mapping.separator,
        columns: [...input.mapping.columns],
        yaml: mappingToYaml(input.mapping),
        storage,
        ...(storage === 'file'
          ? { name: input.mapping.name ?? `${folder.replaceAll('/', '-')}.yaml` }
          : {}),
      };
    }
  }

  const batches: DeliveryBatch[] = [];
  let tracks: Track[][] | undefined;
  if (input.mode === 'json') {
    const sendable: Track[] = [];
    const sendablePaths: (string | undefined)[] = [];
    // A file's finding the plan made already (an empty file) is not said again for its track.
    const said = new Set(findings.map(findingKey));
    for (const planned of input.tracks ?? []) {
      for (const f of planned.findings) {
        if (f.level === 'error' && f.field === 'primary_media' && !download) continue;
        const finding = planned.path ? withFields(f, { path: planned.path }) : { ...f };
        if (!said.has(findingKey(finding))) findings.push(finding);
      }
      if (!planned.track) continue;
      const body: TrackBody = { ...planned.track };
      if (download) {
        if (!isUrl(body.primary_media)) {
          block(
            'media_fetch_type=download needs a public http(s) URL in primary_media',
            planned.path,
            'primary_media',
          );
          continue;
        }
      } else {
        const nfcPath = planned.path?.normalize('NFC');
        const key = nfcPath ? keyOf.get(nfcPath) : undefined;
        if (!key) {
          if (!nfcPath || !unnamed.has(nfcPath)) {
            block('the track has no audio file in this delivery', planned.path, 'primary_media');
          }
          continue;
        }
        body.primary_media = key.slice(AUDIO_ROOT.length);
      }
      if (!body.outer_id) {
        block('outer_id is missing', planned.path, 'outer_id');
        continue;
      }
      sendable.push(body as Track);
      sendablePaths.push(planned.path);
    }
    const pathsOf = new Map<string, string[]>();
    for (const [i, track] of sendable.entries()) {
      const path = sendablePaths[i] ?? track.primary_media;
      pathsOf.set(track.outer_id, [...(pathsOf.get(track.outer_id) ?? []), path]);
    }
    for (const [outerId, paths] of pathsOf) {
      if (paths.length < 2) continue;
      block(
        `outer_id ${quoted(outerId)} is given to ${paths.length} tracks (${paths.map((p) => quoted(p)).join(', ')}): the service would keep only one; give each track its own`,
        paths[0],
        'outer_id',
      );
    }
    const metadataOnly = input.metadataOnly ?? [];
    for (const { track } of metadataOnly) {
      pathsOf.set(track.outer_id, [...(pathsOf.get(track.outer_id) ?? []), track.primary_media]);
    }
    if (sendable.length + metadataOnly.length === 0 && !findings.some((f) => f.level === 'error')) {
      block(`no track to deliver in ${input.dir}`);
    }
    tracks = chunk(sendable);
    tracks.forEach((batch, index) =>
      batches.push({
        index,
        outerIds: batch.map((t) => t.outer_id),
        keys: download ? [] : batch.map((t) => AUDIO_ROOT + t.primary_media),
        state: 'pending',
        attempts: 0,
      }),
    );
    // Metadata-only tracks go in requests of their own: overwrite_audio_file is per request.
    for (const group of chunk(metadataOnly)) {
      batches.push({
        index: batches.length,
        outerIds: group.map((m) => m.track.outer_id),
        keys: [],
        state: 'pending',
        attempts: 0,
        overwriteAudio: false,
      });
      tracks.push(group.map((m) => m.track));
    }
    if (download) files.length = 0;
  } else {
    batches.push({
      index: 0,
      outerIds: [],
      keys: files.map((f) => f.key),
      state: 'pending',
      attempts: 0,
    });
  }

  const iso = now.toISOString();
  const record: DeliveryRecord = {
    version: 1,
    id: newDeliveryId(now),
    identity: deliveryIdentity({
      profile: input.profile.name,
      catalogId: input.catalogId,
      mode: input.mode,
      dir: input.dir,
      folder: input.folder,
    }),
    state: 'planned',
    profile: input.profile.name,
    environment: input.profile.environment,
    bucket: input.bucket,
    catalogId: input.catalogId,
    mode: input.mode,
    dir: input.dir,
    folder,
    options,
    ...(mapping ? { mapping } : {}),
    files,
    batches,
    ...(tracks ? { tracks } : {}),
    ...(input.metadataOnly?.length
      ? { audioOf: Object.fromEntries(input.metadataOnly.map((m) => [m.track.outer_id, m.audio])) }
      : {}),
    createdAt: iso,
    updatedAt: iso,
    runs: 0,
    durations: { uploadMs: 0, confirmMs: 0, ingestMs: 0 },
    bytes: { total: files.reduce((sum, f) => sum + f.size, 0), sent: 0 },
  };
  return { record, findings, blocked: findings.some((f) => f.level === 'error') };
}
