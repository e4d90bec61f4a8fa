import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

import type { Bucket } from './bucket.js';
import {
  AUDIO_ROOT,
  baseName,
  deliveryDirPrefix,
  fileKey,
  MAPPING_ROOT,
  processedAudioKey,
} from './delivery-paths.js';
import type { Entry, EntryStore, IngestionMode } from './entry-store.js';
import { ApiError, badRequest, booleanParam, readJsonBody, requiredParam } from './http-kit.js';
import { applyMapping, type FilenameMapping, parseMapping } from './mapping-parser.js';
import { validateTracks } from './track-validation.js';

/** Largest JSON ingestion body accepted (25 tracks with long lyrics fit easily). */
export const MAX_JSON_BODY_BYTES = 5 * 1024 * 1024;

/** What the ingestion handlers need from the running sandbox. */
export interface IngestionContext {
  bucket: Bucket;
  entries: EntryStore;
  catalogIds: ReadonlySet<string>;
  now(): number;
  /** Called after entries are stored, to start their analysis. */
  onStored(entries: Entry[]): void;
  downloadTimeoutMs: number;
}

/** The response `data` of every ingestion route (the interface shows none; the sandbox's choice). */
export interface IngestionResult {
  ingestion_id: string;
  catalog_id: string;
  mode: IngestionMode;
  count: number;
  entries: { outer_id: string; state: string; audio_key: string | null }[];
}

/** One audio file found for an entry, and what to do with it. */
interface PlannedEntry {
  outerId: string;
  metadata: Record<string, unknown>;
  source: { kind: 'bucket'; key: string } | { kind: 'url'; url: string } | { kind: 'none' };
}

function catalogParam(ctx: IngestionContext, query: URLSearchParams): string {
  const catalogId = requiredParam(query, 'catalog_id');
  if (!ctx.catalogIds.has(catalogId)) {
    throw new ApiError(
      404,
      'catalog_not_found',
      `No catalog with catalog_id '${catalogId}' in this organization.`,
      {
        parameter: 'catalog_id',
      },
    );
  }
  return catalogId;
}

async function deliveredFiles(ctx: IngestionContext, query: URLSearchParams): Promise<string[]> {
  const prefix = deliveryDirPrefix(requiredParam(query, 'delivery_dir_path'));
  const files = (await ctx.bucket.listFiles(prefix)).filter(
    (key) => !baseName(key).startsWith('.'),
  );
  if (files.length === 0) {
    throw new ApiError(
      404,
      'delivery_path_not_found',
      `No delivered files directly under '${prefix}'.`,
      {
        parameter: 'delivery_dir_path',
      },
    );
  }
  return files.sort();
}

/** `POST /ingestion/audio_only`: one entry per delivered file, named by its filename. */
export async function ingestAudioOnly(
  ctx: IngestionContext,
  query: URLSearchParams,
): Promise<IngestionResult> {
  const catalogId = catalogParam(ctx, query);
  const deleteDelivered = booleanParam(query, 'delete_delivered_file', true);
  const files = await deliveredFiles(ctx, query);
  const planned = files.map<PlannedEntry>((key) => ({
    outerId: baseName(key),
    metadata: { outer_id: baseName(key) },
    source: { kind: 'bucket', key },
  }));
  return commit(
    ctx,
    {
      catalogId,
      mode: 'audio_only',
      ingestionId: String(ctx.now()),
      deleteDelivered,
      overwriteAudio: true,
    },
    planned,
  );
}

/** `POST /ingestion/audio_mapping`: like audio_only, with fields read from each filename. */
export async function ingestAudioMapping(
  ctx: IngestionContext,
  query: URLSearchParams,
): Promise<IngestionResult> {
  const catalogId = catalogParam(ctx, query);
  const deleteDelivered = booleanParam(query, 'delete_delivered_file', true);
  const mapping = await loadMapping(ctx, query);
  const files = await deliveredFiles(ctx, query);
  const problems: string[] = [];
  const planned: PlannedEntry[] = [];
  for (const key of files) {
    const fields = applyMapping(mapping, baseName(key));
    if (typeof fields === 'string') problems.push(fields);
    else
      planned.push({ outerId: fields.outer_id, metadata: fields, source: { kind: 'bucket', key } });
  }
  if (problems.length > 0) {
    throw badRequest(
      'mapping_mismatch',
      `The mapping does not fit ${problems.length} file(s): ${problems.join('; ')}.`,
      {
        files: problems,
      },
    );
  }
  return commit(
    ctx,
    {
      catalogId,
      mode: 'audio_mapping',
      ingestionId: String(ctx.now()),
      deleteDelivered,
      overwriteAudio: true,
    },
    planned,
  );
}

async function loadMapping(
  ctx: IngestionContext,
  query: URLSearchParams,
): Promise<FilenameMapping> {
  const filename = query.get('mapping_filename');
  const content = query.get('mapping_content');
  if (filename !== null && filename !== '') {
    const key = fileKey(MAPPING_ROOT, filename, 'mapping_filename');
    const text = await ctx.bucket.readText(key);
    if (text !== undefined) return parseMapping(text);
    if (content === null || content === '') {
      throw new ApiError(404, 'mapping_not_found', `No mapping file '${key}' in the bucket.`, {
        parameter: 'mapping_filename',
      });
    }
  }
  if (content === null || content === '') {
    throw badRequest('missing_parameter', "Give 'mapping_filename' or 'mapping_content'.", {
      parameter: 'mapping_content',
    });
  }
  return parseMapping(content);
}

/** `POST /ingestion/json`: one entry per track of the body (at most 25). */
export async function ingestJson(
  ctx: IngestionContext,
  query: URLSearchParams,
  req: IncomingMessage,
  onTracks: (tracks: unknown[]) => void,
): Promise<IngestionResult> {
  const body = await readJsonBody(req, MAX_JSON_BODY_BYTES);
  if (Array.isArray(body)) onTracks(body);
  const catalogId = catalogParam(ctx, query);
  const fetchType = query.get('media_fetch_type') ?? query.get('media_fetch_types') ?? 's3';
  if (fetchType !== 's3' && fetchType !== 'download') {
    throw badRequest(
      'invalid_parameter',
      `Query parameter 'media_fetch_type' must be s3 or download, not '${fetchType}'.`,
      {
        parameter: 'media_fetch_type',
      },
    );
  }
  const overwriteAudio = booleanParam(query, 'overwrite_audio_file', true);
  const deleteDelivered = booleanParam(query, 'delete_delivered_file', true);
  const ingestionId = query.get('ingestion_id') || String(ctx.now());
  const problems = validateTracks(body);
  if (problems.length > 0) {
    throw badRequest(
      'invalid_body',
      `The body is not a valid list of tracks: ${problems.map((p) => `${p.field || 'body'} ${p.message}`).join('; ')}.`,
      { fields: problems },
    );
  }
  const tracks = body as { outer_id: string; primary_media: string }[];
  const planned: PlannedEntry[] = tracks.map((track, index) => {
    const metadata = { ...(track as unknown as Record<string, unknown>) };
    if (fetchType === 'download') {
      let url: URL | undefined;
      try {
        url = new URL(track.primary_media);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        throw badRequest(
          'invalid_body',
          `[${index}].primary_media must be an http(s) URL when media_fetch_type is download.`,
          {
            fields: [{ field: `[${index}].primary_media`, message: 'must be an http(s) URL' }],
          },
        );
      }
      return { outerId: track.outer_id, metadata, source: { kind: 'url', url: url.href } };
    }
    const key = fileKey(AUDIO_ROOT, track.primary_media, `[${index}].primary_media`);
    return { outerId: track.outer_id, metadata, source: { kind: 'bucket', key } };
  });
  const missing: string[] = [];
  for (const entry of planned) {
    // overwrite_audio_file=false keeps an existing entry's audio: its primary_media is not read
    // (docs/sandbox.md), so a metadata-only re-delivery needs no upload.
    const keepsAudio =
      !overwriteAudio && ctx.entries.get(catalogId, entry.outerId)?.audio_key != null;
    if (
      entry.source.kind === 'bucket' &&
      !keepsAudio &&
      !(await ctx.bucket.exists(entry.source.key))
    )
      missing.push(entry.source.key);
  }
  if (missing.length > 0) {
    throw new ApiError(
      404,
      'delivery_path_not_found',
      `Delivered audio not found: ${missing.join(', ')}.`,
      {
        missing,
      },
    );
  }
  return commit(
    ctx,
    { catalogId, mode: 'json', ingestionId, deleteDelivered, overwriteAudio },
    planned,
  );
}

interface CommitOptions {
  catalogId: string;
  mode: IngestionMode;
  ingestionId: string;
  deleteDelivered: boolean;
  overwriteAudio: boolean;
}

/** Step 1 of section 3: audio moved (or fetched), entries stored, analysis started. */
async function commit(
  ctx: IngestionContext,
  options: CommitOptions,
  planned: PlannedEntry[],
): Promise<IngestionResult> {
  const { catalogId } = options;
  const now = ctx.now();
  const stored: Entry[] = [];
  const fetched: string[] = [];
  try {
    for (const plan of planned) {
      const previous =
        ctx.entries.get(catalogId, plan.outerId) ?? stored.find((e) => e.outer_id === plan.outerId);
      const keepOldAudio = !options.overwriteAudio && previous?.audio_key != null;
      let audioKey = keepOldAudio ? previous!.audio_key : null;
      if (plan.source.kind === 'bucket') {
        const { key } = plan.source;
        if (!keepOldAudio) {
          audioKey = processedAudioKey(catalogId, plan.outerId, baseName(key));
          if (options.deleteDelivered) await ctx.bucket.move(key, audioKey);
          else await ctx.bucket.copy(key, audioKey);
        } else if (options.deleteDelivered) {
          await ctx.bucket.delete(key);
        }
      } else if (plan.source.kind === 'url' && !keepOldAudio) {
        audioKey = processedAudioKey(
          catalogId,
          plan.outerId,
          baseName(new URL(plan.source.url).pathname) || 'audio',
        );
        fetched.push(audioKey);
        await download(ctx, plan.source.url, audioKey);
      }
      if (previous?.audio_key && previous.audio_key !== audioKey)
        await ctx.bucket.delete(previous.audio_key);
      const entry: Entry = {
        catalog_id: catalogId,
        outer_id: plan.outerId,
        mode: options.mode,
        ingestion_id: options.ingestionId,
        metadata: plan.metadata,
        audio_key: audioKey,
        state: 'stored',
        created_at: previous?.created_at ?? now,
        updated_at: now,
      };
      const index = stored.findIndex((e) => e.outer_id === plan.outerId);
      if (index >= 0) stored.splice(index, 1);
      stored.push(entry);
    }
  } catch (error) {
    await Promise.all(fetched.map((key) => ctx.bucket.delete(key).catch(() => undefined)));
    throw error;
  }
  await ctx.entries.put(stored);
  ctx.onStored(stored);
  return {
    ingestion_id: options.ingestionId,
    catalog_id: catalogId,
    mode: options.mode,
    count: stored.length,
    entries: stored.map((e) => ({ outer_id: e.outer_id, state: e.state, audio_key: e.audio_key })),
  };
}

async function download(ctx: IngestionContext, url: string, key: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(ctx.downloadTimeoutMs),
      redirect: 'follow',
    });
  } catch (error) {
    throw badRequest(
      'media_unavailable',
      `primary_media '${url}' could not be fetched: ${(error as Error).message}.`,
    );
  }
  if (!response.ok || !response.body) {
    throw badRequest(
      'media_unavailable',
      `primary_media '${url}' answered HTTP ${response.status}; it must be publicly available.`,
    );
  }
  const type = response.headers.get('content-type') ?? 'binary/octet-stream';
  await ctx.bucket.put(key, Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), type);
}
