/**
 * The service's Web API, typed: client-credential tokens, the tag lexicology and the three
 * ingestion endpoints (service-interface.md §4). Every call has a timeout; network errors, 429
 * and 5xx are retried with exponential backoff and jitter; a 401 renews the token once.
 */
import { backoffDelay, sleep } from '../storage/retry.js';
import { ApiError, codeForStatus, serverMessage } from './api-error.js';
import { TokenCache } from './token-cache.js';

/** A tag of the lexicology (§2.3). */
export interface Tag {
  id: string;
  name: string;
  category: { id: string; name: string };
}

/** One page of the tag listing, as the service returned it (§4.2). */
export interface TagPage {
  tags: Tag[];
  offset: number;
  limit: number;
  size: number;
  total_size: number;
}

export interface TagQuery {
  limit?: number;
  category_name?: string;
  name?: string;
}

/**
 * What an ingestion call answered. The interface does not show ingestion response bodies, so
 * the body is kept as received (parsed JSON, or the text when it is not JSON).
 */
export interface IngestionResponse {
  status: number;
  body: unknown;
}

/** Query parameters common to the ingestion endpoints, with the interface's defaults. */
export interface IngestionTarget {
  catalog_id: string;
  /** Default true (the service deletes delivered files once processed). */
  delete_delivered_file?: boolean;
}

export interface AudioOnlyRequest extends IngestionTarget {
  delivery_dir_path: string;
}

export interface AudioMappingRequest extends AudioOnlyRequest {
  mapping_filename?: string;
  mapping_content?: string;
}

export interface JsonIngestionOptions extends IngestionTarget {
  media_fetch_type?: 's3' | 'download';
  ingestion_id?: string;
  overwrite_audio_file?: boolean;
}

/** At most this many tracks per JSON ingestion request (§8). */
export const MAX_TRACKS_PER_REQUEST = 25;

export interface ServiceClientOptions {
  baseUrl: string;
  clientId: string;
  /** Read when a token is needed, so the secret stays in the keychain until then. */
  clientSecret: () => Promise<string>;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries after the first attempt, for network errors, 429 and 5xx. */
  retries?: number;
  backoffBaseMs?: number;
  now?: () => number;
  random?: () => number;
  fetch?: typeof fetch;
}

interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  auth?: boolean;
  /** Human name of the endpoint for messages, e.g. "POST /ingestion/json". */
  endpoint: string;
}

interface Answer {
  status: number;
  body: unknown;
  text: string;
  /** Seconds the service asked us to wait (Retry-After), when it did. */
  retryAfter?: number;
}

/** The longest Retry-After honoured; a longer one is treated as this. */
const MAX_RETRY_AFTER_MS = 30_000;

/** A client of one service environment (one profile). */
export class ServiceClient {
  readonly tokens: TokenCache;
  readonly #options: Required<Omit<ServiceClientOptions, 'clientSecret'>> &
    Pick<ServiceClientOptions, 'clientSecret'>;
  /** Token requests made by this client (a burst of calls should make one). */
  tokenRequests = 0;

  constructor(options: ServiceClientOptions) {
    this.#options = {
      timeoutMs: 30_000,
      retries: 4,
      backoffBaseMs: 250,
      now: Date.now,
      random: Math.random,
      fetch: globalThis.fetch,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
    this.tokens = new TokenCache(() => this.#createToken(), this.#options.now);
  }

  /**
   * Checks the credentials by obtaining a fresh token (§4.1); resolves to how far the
   * service's clock (the envelope's `timestamp`) is ahead of ours, in ms, when it says.
   */
  async verifyCredentials(): Promise<{ clockSkewMs?: number }> {
    const sentAt = this.#options.now();
    const { serverTime } = await this.#createToken();
    const midpoint = (sentAt + this.#options.now()) / 2;
    return serverTime === undefined ? {} : { clockSkewMs: serverTime - midpoint };
  }

  /** One page of the tag listing with the given filters (§4.2). */
  async listTags(query: TagQuery = {}): Promise<TagPage> {
    const { body } = await this.#call('GET', '/lexicology/tags', {
      endpoint: 'GET /lexicology/tags',
      query: { ...query },
    });
    return parseTagPage(body);
  }

  /**
   * Every tag matching the filters. The interface has no documented `offset`, so this asks
   * again with `limit` raised to the `total_size` the first page announced; `complete` is
   * false when the service still returned fewer (a page-size cap it does not document).
   */
  async listAllTags(
    query: Omit<TagQuery, 'limit'> = {},
  ): Promise<{ tags: Tag[]; total: number; complete: boolean }> {
    let page = await this.listTags({ ...query, limit: 1000 });
    if (page.tags.length < page.total_size) {
      page = await this.listTags({ ...query, limit: page.total_size });
    }
    return {
      tags: page.tags,
      total: page.total_size,
      complete: page.tags.length >= page.total_size,
    };
  }

  // Ingestion calls are safe to retry: an entry whose outer_id already exists is overwritten
  // (§3 step 1), so a request that reached the service twice leaves the catalog as once.

  /** Ingests every file of a delivery folder, file name = outer_id (§4.3). */
  async ingestAudioOnly(request: AudioOnlyRequest): Promise<IngestionResponse> {
    return this.#ingest('/ingestion/audio_only', { ...request });
  }

  /** Ingests a delivery folder, fields cut out of file names by a mapping (§4.4). */
  async ingestAudioMapping(request: AudioMappingRequest): Promise<IngestionResponse> {
    return this.#ingest('/ingestion/audio_mapping', { ...request });
  }

  /** Ingests up to 25 tracks with their metadata (§4.5). */
  async ingestJson(tracks: unknown[], options: JsonIngestionOptions): Promise<IngestionResponse> {
    if (tracks.length === 0 || tracks.length > MAX_TRACKS_PER_REQUEST) {
      throw new ApiError(
        'bad_request',
        `A JSON ingestion request carries 1 to ${MAX_TRACKS_PER_REQUEST} tracks, not ${tracks.length}.`,
        0,
        'POST /ingestion/json',
      );
    }
    return this.#ingest('/ingestion/json', { ...options }, tracks);
  }

  async #ingest(
    path: string,
    query: CallOptions['query'],
    json?: unknown[],
  ): Promise<IngestionResponse> {
    const { status, body, text } = await this.#call('POST', path, {
      endpoint: `POST ${path}`,
      query,
      json,
    });
    return { status, body: body === undefined ? text : body };
  }

  async #createToken(): Promise<{ token: string; lifetimeMs: number; serverTime?: number }> {
    this.tokenRequests++;
    const endpoint = 'POST /oauth/access_tokens/client';
    const answer = await this.#call('POST', '/oauth/access_tokens/client', {
      endpoint,
      auth: false,
      json: {
        client_id: this.#options.clientId,
        client_secret: await this.#options.clientSecret(),
      },
    });
    const data = (answer.body as { data?: Record<string, unknown> } | undefined)?.data;
    const token = data?.token;
    const issued = data?.issued_at;
    const expires = data?.expires_at;
    if (typeof token !== 'string' || typeof issued !== 'number' || typeof expires !== 'number') {
      throw new ApiError(
        'bad_response',
        `${endpoint} answered ${answer.status} without a token, issued_at and expires_at.`,
        answer.status,
        endpoint,
        answer.body,
      );
    }
    const timestamp = (answer.body as { timestamp?: unknown }).timestamp;
    return {
      token,
      lifetimeMs: Math.max(0, expires - issued),
      ...(typeof timestamp === 'number' ? { serverTime: timestamp } : {}),
    };
  }

  async #call(method: string, path: string, options: CallOptions): Promise<Answer> {
    const { retries, backoffBaseMs, random } = this.#options;
    let renewedAfter401 = false;
    for (let attempt = 0; ; attempt++) {
      const token = options.auth === false ? null : await this.tokens.get();
      let answer: Answer;
      try {
        answer = await this.#send(method, path, options, token);
      } catch (error) {
        if (attempt < retries) {
          await sleep(backoffDelay(attempt, backoffBaseMs, 10_000, random));
          continue;
        }
        throw error;
      }
      if (answer.status === 401 && token && !renewedAfter401) {
        // The token expired early or was revoked: renew once, then let a second 401 surface.
        renewedAfter401 = true;
        this.tokens.invalidate(token);
        attempt--;
        continue;
      }
      if ((answer.status === 429 || answer.status >= 500) && attempt < retries) {
        const asked = Math.min(MAX_RETRY_AFTER_MS, (answer.retryAfter ?? 0) * 1000);
        await sleep(Math.max(asked, backoffDelay(attempt, backoffBaseMs, 10_000, random)));
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return answer;
      throw failure(options.endpoint, answer, options.auth === false);
    }
  }

  async #send(
    method: string,
    path: string,
    options: CallOptions,
    token: string | null,
  ): Promise<Answer> {
    const url = new URL(this.#options.baseUrl + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.#options.fetch(url, {
        method,
        headers,
        body: options.json === undefined ? undefined : JSON.stringify(options.json),
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new ApiError(
        timedOut ? 'timeout' : 'network',
        timedOut
          ? `${options.endpoint}: no answer from ${url.host} within ${this.#options.timeoutMs} ms.`
          : `${options.endpoint}: could not reach ${url.host} (${causeOf(error)}).`,
        0,
        options.endpoint,
        undefined,
        { cause: error },
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      status: response.status,
      body,
      text,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfter } : {}),
    };
  }
}

function failure(endpoint: string, answer: Answer, isTokenRequest: boolean): ApiError {
  const message = serverMessage(answer.body, answer.text);
  const code =
    isTokenRequest && (answer.status === 401 || answer.status === 400)
      ? 'bad_credentials'
      : codeForStatus(answer.status);
  const hint =
    code === 'bad_credentials'
      ? ' Check the client_id and client_secret of this profile.'
      : code === 'unauthorized'
        ? ' The token was refused even after renewing it.'
        : '';
  return new ApiError(
    code,
    `${endpoint} answered ${answer.status}${message ? `: ${message}` : ''}.${hint}`,
    answer.status,
    endpoint,
    answer.body ?? answer.text,
  );
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function parseTagPage(body: unknown): TagPage {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!Array.isArray(b.data)) {
    throw new ApiError(
      'bad_response',
      'GET /lexicology/tags answered without a data array.',
      200,
      'GET /lexicology/tags',
      body,
    );
  }
  const tags = b.data as Tag[];
  const number = (value: unknown, fallback: number) =>
    typeof value === 'number' ? value : fallback;
  return {
    tags,
    offset: number(b.offset, 0),
    limit: number(b.limit, tags.length),
    size: number(b.size, tags.length),
    total_size: number(b.total_size, tags.length),
  };
}
