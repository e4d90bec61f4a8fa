/**
 * The service's Web API, typed: client-credential tokens, the tag lexicology and the three
 * ingestion endpoints (service-interface.md §4). Every attempt has a timeout; network errors,
 * 408, 429 and 5xx are retried with exponential backoff and jitter within a retry budget; a
 * service that never answered is reported unreachable (docs/timeouts.md); a 401 renews the
 * token once. Every token obtained is made known to the redactor, and what the service answers
 * is kept redacted.
 */
import { redactor, redactValue } from '../log.js';
import { maxTracksPerRequest } from '../model/ingestion-body.js';
import {
  CertificateError,
  certificateProblem,
  NetworkError,
  networkReason,
  proxyRefusal,
  ProxyRefusedError,
  Reachability,
} from '../network/reachability.js';
import { networkFetch, reasonOnRoute } from '../network/routes.js';
import { type NetworkTimeouts, resolveTimeouts } from '../network/timeouts.js';
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

export interface ServiceClientOptions {
  baseUrl: string;
  clientId: string;
  /** Read when a token is needed, so the secret stays in the keychain until then. */
  clientSecret: () => Promise<string>;
  /** Connect, answer, unreachable and retry-budget limits (defaults: DEFAULT_TIMEOUTS). */
  timeouts?: Partial<NetworkTimeouts>;
  /** Per attempt: no complete answer within this and the attempt is dropped (default: idle). */
  timeoutMs?: number;
  /** Retries after the first attempt, for network errors, 408, 429 and 5xx, within the retry budget. */
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
  /** Where a redirect points (never followed). */
  location?: string;
  /** Seconds the service asked us to wait (Retry-After), when it did. */
  retryAfter?: number;
}

/** The longest Retry-After honoured; a longer one is treated as this. */
const MAX_RETRY_AFTER_MS = 30_000;

/** A client of one service environment (one profile). */
export class ServiceClient {
  readonly tokens: TokenCache;
  readonly #options: Required<Omit<ServiceClientOptions, 'clientSecret' | 'timeouts'>> &
    Pick<ServiceClientOptions, 'clientSecret'>;
  readonly #timeouts: NetworkTimeouts;
  readonly #reach: Reachability;
  /** Token requests made by this client (a burst of calls should make one). */
  tokenRequests = 0;

  constructor(options: ServiceClientOptions) {
    this.#timeouts = resolveTimeouts(options.timeouts);
    this.#options = {
      timeoutMs: this.#timeouts.idleMs,
      retries: 4,
      backoffBaseMs: 250,
      now: Date.now,
      random: Math.random,
      fetch: networkFetch,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
    let host = this.#options.baseUrl;
    try {
      host = new URL(host).host;
    } catch {
      // a malformed base URL fails on the first call with its own message
    }
    this.#reach = new Reachability(
      'service',
      host,
      this.#timeouts.unreachableMs,
      this.#options.now,
    );
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
    if (tracks.length === 0 || tracks.length > maxTracksPerRequest) {
      throw new ApiError(
        'bad_request',
        `A JSON ingestion request carries 1 to ${maxTracksPerRequest} tracks, not ${tracks.length}.`,
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
    // The service's answer is kept in delivery records: no token it echoes may reach the disk.
    return { status, body: redactValue(body === undefined ? text : body) };
  }

  async #createToken(): Promise<{ token: string; lifetimeMs: number; serverTime?: number }> {
    this.tokenRequests++;
    const endpoint = 'POST /oauth/access_tokens/client';
    const answer = await this.#call('POST', '/oauth/access_tokens/client', {
      endpoint,
      auth: false,
      json: {
        client_id: this.#options.clientId,
        client_secret: await this.#clientSecret(),
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
    // From now on no output of this process (log, record, stderr) may carry it.
    redactor.add(token);
    const timestamp = (answer.body as { timestamp?: unknown }).timestamp;
    return {
      token,
      lifetimeMs: Math.max(0, expires - issued),
      ...(typeof timestamp === 'number' ? { serverTime: timestamp } : {}),
    };
  }

  /** The one-line error for a call to a service declared unreachable. */
  #unreachable(endpoint: string): ApiError {
    const cause = this.#reach.unreachable;
    return new ApiError('unreachable', `${endpoint}: ${cause?.message}`, 0, endpoint, undefined, {
      cause,
    });
  }

  async #clientSecret(): Promise<string> {
    const secret = await this.#options.clientSecret();
    redactor.add(secret);
    return secret;
  }

  async #call(method: string, path: string, options: CallOptions): Promise<Answer> {
    const { retries, backoffBaseMs, random, now } = this.#options;
    const startedAt = now();
    /** Whether a retry after `delayMs` still starts within the call's retry budget. */
    const inBudget = (delayMs: number) =>
      now() + delayMs - startedAt <= this.#timeouts.retryBudgetMs;
    let renewedAfter401 = false;
    for (let attempt = 0; ; attempt++) {
      const token = options.auth === false ? null : await this.tokens.get();
      let answer: Answer;
      try {
        if (this.#reach.unreachable) throw this.#unreachable(options.endpoint);
        this.#reach.attempting();
        // Until the service first answers, an attempt waits no longer than the unreachable bound.
        const deadline = this.#reach.deadline();
        const waitMs = Math.min(
          this.#options.timeoutMs,
          deadline === undefined ? Infinity : Math.max(1, deadline - now()),
        );
        answer = await this.#send(method, path, options, token, waitMs);
        this.#reach.answered();
      } catch (error) {
        const final =
          error instanceof ApiError && ['unreachable', 'untrusted'].includes(error.code);
        if (!(error instanceof ApiError) || error.status !== 0 || final) {
          throw error;
        }
        const delayMs = backoffDelay(attempt, backoffBaseMs, 10_000, random);
        const lastTry = attempt >= retries || !inBudget(delayMs);
        // A service that never answered once is reported as unreachable, not retried on.
        if (this.#reach.giveUp(networkFailure(error), lastTry ? Infinity : now() + delayMs)) {
          throw this.#unreachable(options.endpoint);
        }
        if (!lastTry) {
          await sleep(delayMs);
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
      const transient = answer.status === 408 || answer.status === 429 || answer.status >= 500;
      if (transient && attempt < retries) {
        const asked = Math.min(MAX_RETRY_AFTER_MS, (answer.retryAfter ?? 0) * 1000);
        const delayMs = Math.max(asked, backoffDelay(attempt, backoffBaseMs, 10_000, random));
        if (inBudget(delayMs)) {
          await sleep(delayMs);
          continue;
        }
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
    timeoutMs: number,
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
        signal: AbortSignal.timeout(timeoutMs),
        // A redirect would re-send the body (the client secret, for a token) to wherever it
        // points: the service never redirects, so one is a failure, not followed.
        redirect: 'manual',
      });
    } catch (error) {
      // A certificate or a proxy that refuses now will refuse again: said once, not retried.
      const certificate = certificateProblem(error);
      const refusal = proxyRefusal(error);
      if (certificate || refusal) {
        const final = certificate
          ? new CertificateError('service', url.host, certificate)
          : new ProxyRefusedError('service', url.host, refusal!);
        throw new ApiError(
          final.code,
          `${options.endpoint}: ${final.message}`,
          0,
          options.endpoint,
          {
            reason: certificate ?? refusal,
          },
        );
      }
      const timedOut = (error as Error).name === 'TimeoutError';
      const reason = reasonOnRoute(
        url.host,
        timedOut ? `no answer within ${Math.round(timeoutMs / 1000)} s` : networkReason(error),
      );
      throw new ApiError(
        timedOut ? 'timeout' : 'network',
        `${options.endpoint}: no answer from ${url.host} (${reason}); ${SERVICE_HINT}.`,
        0,
        options.endpoint,
        { reason },
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
    const location = response.headers.get('location');
    return {
      status: response.status,
      body,
      text,
      ...(location ? { location } : {}),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfter } : {}),
    };
  }
}

function failure(endpoint: string, answer: Answer, isTokenRequest: boolean): ApiError {
  if (answer.status >= 300 && answer.status < 400) {
    return new ApiError(
      'redirected',
      `${endpoint} answered ${answer.status}, a redirect${answer.location ? ` to ${answer.location}` : ''}; Courier sends nothing on to another address. ${SERVICE_HINT[0]!.toUpperCase()}${SERVICE_HINT.slice(1)}.`,
      answer.status,
      endpoint,
      answer.text,
    );
  }
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

const SERVICE_HINT =
  "check the profile's base URL, and that this computer can reach it (network, VPN, proxy, firewall)";

/** The reachability view of an ApiError that got no answer. */
function networkFailure(error: ApiError): NetworkError {
  const reason = (error.body as { reason?: string } | undefined)?.reason ?? error.code;
  return new NetworkError('service', '', reason, { cause: error });
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
