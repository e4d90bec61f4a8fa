import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import type { EntryQuery, EntryState, EntryStore } from './entry-store.js';
import { drawFault, type FaultSettings } from './faults.js';
import {
  ApiError,
  badRequest,
  envelope,
  errorEnvelope,
  type ListFields,
  readJsonBody,
  sendJson,
} from './http-kit.js';
import {
  ingestAudioMapping,
  ingestAudioOnly,
  type IngestionContext,
  ingestJson,
} from './ingestion.js';
import { listTags } from './lexicology.js';
import type { RequestLog } from './request-log.js';
import type { TokenIssuer } from './tokens.js';

/** What the API server needs from the running sandbox. */
export interface ApiContext extends IngestionContext {
  tokens: TokenIssuer;
  entries: EntryStore;
  requests: RequestLog;
  faults: FaultSettings;
  random?: () => number;
}

/** One request in progress: its parsed address and what the log will record. */
interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  tracks: number | null;
  outerIds: string[] | null;
}

/** The service API's request handler (index.ts serves it over HTTP or HTTPS). */
export function apiRequestListener(ctx: ApiContext): RequestListener {
  return (req, res) => {
    void handle(ctx, req, res);
  };
}

async function handle(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const exchange: Exchange = {
    method: req.method ?? 'GET',
    path: mark >= 0 ? url.slice(0, mark) : url,
    query: new URLSearchParams(mark >= 0 ? url.slice(mark + 1) : ''),
    tracks: null,
    outerIds: null,
  };
  const inspection = exchange.path.startsWith('/sandbox/');
  let status = 500;
  try {
    const fault = inspection ? undefined : drawFault(ctx.faults, ctx.random);
    if (fault?.kind === 'slow') await sleep(fault.ms);
    if (fault?.kind === 'error') {
      throw new ApiError(
        500,
        'injected_fault',
        'Injected server error (sandbox fault injection); retry later.',
      );
    }
    if (fault?.kind === 'throttle') {
      throw new ApiError(
        429,
        'too_many_requests',
        'Too many requests (sandbox fault injection); retry after 1 second.',
      );
    }
    const { status: ok, data, list } = await route(ctx, req, exchange);
    status = ok;
    sendJson(res, ok, envelope(ok, ctx.now(), data, list));
  } catch (error) {
    const apiError =
      error instanceof ApiError
        ? error
        : new ApiError(500, 'internal_error', `The sandbox failed: ${String(error)}`);
    if (!(error instanceof ApiError))
      process.stderr.write(`sandbox: ${String((error as Error)?.stack ?? error)}\n`);
    status = apiError.status;
    if (!res.headersSent) {
      sendJson(
        res,
        status,
        errorEnvelope(apiError, ctx.now()),
        status === 429 ? { 'retry-after': '1' } : {},
      );
    }
    // Unread request bodies would otherwise stall keep-alive connections.
    req.resume();
  } finally {
    if (!inspection) {
      ctx.requests.add({
        at: ctx.now(),
        method: exchange.method,
        path: exchange.path,
        query: Object.fromEntries(exchange.query),
        status,
        tracks: exchange.tracks,
        outer_ids: exchange.outerIds,
      });
    }
  }
}

type Routed = { status: number; data: unknown; list?: ListFields };

const ROUTES: Record<string, string> = {
  '/oauth/access_tokens/client': 'POST',
  '/lexicology/tags': 'GET',
  '/ingestion/audio_only': 'POST',
  '/ingestion/audio_mapping': 'POST',
  '/ingestion/json': 'POST',
  '/sandbox/requests': 'GET',
  '/sandbox/requests/summary': 'GET',
};

async function route(ctx: ApiContext, req: IncomingMessage, ex: Exchange): Promise<Routed> {
  const entriesMatch = /^\/sandbox\/catalogs\/([^/]+)\/entries\/?$/.exec(ex.path);
  const allowed = entriesMatch ? 'GET' : ROUTES[ex.path.replace(/\/$/, '') || '/'];
  if (!allowed) throw new ApiError(404, 'not_found', `No route ${ex.path}.`);
  const method = ex.path === '/sandbox/requests' && ex.method === 'DELETE' ? 'DELETE' : allowed;
  if (ex.method !== method) {
    throw new ApiError(
      405,
      'method_not_allowed',
      `${ex.path} accepts ${allowed}, not ${ex.method}.`,
    );
  }
  const path = ex.path.replace(/\/$/, '');
  if (path === '/oauth/access_tokens/client') {
    const body = await readJsonBody(req, 64 * 1024).catch((error: unknown) => {
      // Credentials that cannot be read are missing credentials.
      if (error instanceof ApiError && error.status === 400) return undefined;
      throw error;
    });
    return { status: 201, data: ctx.tokens.issue(body) };
  }
  ctx.tokens.authenticate(req.headers.authorization);
  if (entriesMatch) {
    const catalogId = safeDecode(entriesMatch[1]!);
    if (!ctx.catalogIds.has(catalogId)) {
      throw new ApiError(404, 'catalog_not_found', `No catalog with id '${catalogId}'.`);
    }
    const query = entryQuery(ex.query);
    const { entries, total } = ctx.entries.page(catalogId, query);
    const list = { offset: query.offset, limit: query.limit, size: entries.length };
    return { status: 200, data: entries, list: { ...list, total_size: total } };
  }
  switch (path) {
    case '/lexicology/tags': {
      const { data, list } = listTags(ex.query);
      return { status: 200, data, list };
    }
    case '/ingestion/audio_only':
      return { status: 200, data: await ingestAudioOnly(ctx, ex.query) };
    case '/ingestion/audio_mapping':
      return { status: 200, data: await ingestAudioMapping(ctx, ex.query) };
    case '/ingestion/json':
      return {
        status: 200,
        data: await ingestJson(ctx, ex.query, req, (tracks) => {
          ex.tracks = tracks.length;
          ex.outerIds = tracks.map((t) => String((t as { outer_id?: unknown } | null)?.outer_id));
        }),
      };
    case '/sandbox/requests':
      if (ex.method === 'DELETE') {
        ctx.requests.clear();
        return { status: 200, data: [] };
      }
      {
        const data = ctx.requests.list();
        const { total } = ctx.requests.summary();
        const list = { offset: total - data.length, limit: data.length, size: data.length };
        return { status: 200, data, list: { ...list, total_size: total } };
      }
    case '/sandbox/requests/summary':
      return { status: 200, data: ctx.requests.summary() };
    default:
      throw new ApiError(404, 'not_found', `No route ${ex.path}.`);
  }
}

const STATES: ReadonlySet<string> = new Set<EntryState>([
  'stored',
  'analyzing',
  'analyzed',
  'available',
]);

/**
 * Entries per answer of the inspection route unless `limit` says otherwise, and at most: a whole
 * page is a few MB of JSON, answered well within a second; a bigger catalog is read in pages.
 */
export const ENTRY_PAGE_LIMIT = 10_000;

/** The inspection route's `offset`, `limit`, `state` and `outer_id` parameters. */
function entryQuery(
  params: URLSearchParams,
): EntryQuery & Required<Pick<EntryQuery, 'offset' | 'limit'>> {
  const number = (name: 'offset' | 'limit', fallback: number, max: number) => {
    const text = params.get(name);
    if (text === null) return fallback;
    if (!/^\d{1,9}$/.test(text) || Number(text) > max) {
      throw badRequest(
        'invalid_parameter',
        `${name} must be an integer from 0 to ${max}, not '${text}'.`,
        { parameter: name },
      );
    }
    return Number(text);
  };
  const query = {
    offset: number('offset', 0, 999_999_999),
    limit: number('limit', ENTRY_PAGE_LIMIT, ENTRY_PAGE_LIMIT),
  } as EntryQuery & Required<Pick<EntryQuery, 'offset' | 'limit'>>;
  const states = params.getAll('state').flatMap((s) => s.split(','));
  const unknown = states.find((s) => !STATES.has(s));
  if (unknown !== undefined) {
    throw badRequest(
      'invalid_parameter',
      `state must be one of ${[...STATES].join(', ')}, not '${unknown}'.`,
      { parameter: 'state' },
    );
  }
  if (states.length > 0) query.states = new Set(states as EntryState[]);
  const outerIds = params.getAll('outer_id');
  if (outerIds.length > 0) query.outerIds = new Set(outerIds);
  return query;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
