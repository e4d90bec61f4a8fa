/**
 * The sandbox: a local implementation of the analysis service's API (service-interface.md) and
 * of the organization's delivery bucket, used as the app's embedded "Sandbox" profile and as the
 * peer of every integration and end-to-end test. See docs/sandbox.md.
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { apiRequestListener } from './api-server.js';
import { Bucket } from './bucket.js';
import { EntryStore } from './entry-store.js';
import { type FaultSettings, NO_FAULTS } from './faults.js';
import { loadOrCreateIdentity } from './identity.js';
import { Processing, type ProcessingTimings } from './processing.js';
import { RequestLog } from './request-log.js';
import { gateRequestListener } from './s3-gate.js';
import { TOKEN_LIFETIME_MS, TokenIssuer } from './tokens.js';

export { ENTRY_PAGE_LIMIT } from './api-server.js';
export type { Entry, EntryState, IngestionMode } from './entry-store.js';
export { type FaultSettings, faultsFromEnv, NO_FAULTS } from './faults.js';
export { DEFAULT_TAG_LIMIT, MAX_TAG_LIMIT } from './lexicology.js';
export type { LoggedRequest, RequestCounts } from './request-log.js';
export { TOKEN_LIFETIME_MS } from './tokens.js';

/** How to start a sandbox; everything but `dataDir` has a default. */
export interface SandboxOptions {
  /** Holds identity, entries and bucket contents across restarts. */
  dataDir: string;
  /** API port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Bucket port on 127.0.0.1; 0 (default) picks a free one. */
  s3Port?: number;
  /** Access token lifetime; the service's is 7,200,000 ms (the default). */
  tokenLifetimeMs?: number;
  faults?: Partial<FaultSettings>;
  timings?: Partial<ProcessingTimings>;
  /** The service's clock (epoch ms) for tokens, entries and envelopes; S3 signing uses real time. */
  now?: () => number;
  /** Random source for fault injection. */
  random?: () => number;
  /** How long `media_fetch_type=download` waits for a URL. */
  downloadTimeoutMs?: number;
  /**
   * Serve both the API and the bucket over HTTPS with this key and certificate (PEM), as a
   * service behind a company's TLS gateway would be reached; plain HTTP without.
   */
  tls?: { key: string; cert: string };
  /**
   * The host name the printed addresses use (default 127.0.0.1); the servers still listen on
   * 127.0.0.1 only, so another name must resolve there, or be reached through a proxy.
   */
  hostName?: string;
}

/** Exactly what `courier sandbox` prints: how a client reaches this sandbox. */
export interface SandboxInfo {
  base_url: string;
  organization_id: string;
  client_id: string;
  client_secret: string;
  catalogs: { id: string; name: string }[];
  bucket: {
    bucket_name: string;
    bucket_region: string;
    endpoint: string;
    access_key_id: string;
    secret_access_key: string;
  };
}

/** A running sandbox. */
export interface RunningSandbox {
  info: SandboxInfo;
  /** Stops accepting requests, finishes those in progress and saves everything. */
  close(): Promise<void>;
}

/** Default timings: fast enough to watch, slow enough to see each state. */
export const DEFAULT_TIMINGS: ProcessingTimings = { analysisMs: 1500, productIntervalMs: 5000 };

/** A server for a handler, over HTTPS when given a key and certificate. */
function serve(listener: RequestListener, tls: SandboxOptions['tls']): Server {
  return tls ? (createHttpsServer(tls, listener) as unknown as Server) : createServer(listener);
}

async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

function defined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(
    Object.entries(value ?? {}).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** Starts the service API and the delivery bucket; resolves once both accept requests. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const now = options.now ?? Date.now;
  await mkdir(options.dataDir, { recursive: true });
  const identity = await loadOrCreateIdentity(options.dataDir, now());
  const entries = await EntryStore.open(
    options.dataDir,
    identity.catalogs.map((c) => c.id),
  );
  const bucket = await Bucket.start(join(options.dataDir, 'bucket'), identity.bucket.bucket_name, {
    organization_id: identity.organization_id,
    bucket_name: identity.bucket.bucket_name,
    bucket_region: identity.bucket.bucket_region,
    catalogs: identity.catalogs,
    note: 'Courier sandbox delivery bucket. Write under delivery/audio, delivery/ddex, delivery/mapping, delivery/metadata.',
  });
  const processing = new Processing(
    entries,
    bucket,
    { ...DEFAULT_TIMINGS, ...defined(options.timings) },
    now,
  );
  const api = serve(
    apiRequestListener({
      bucket,
      entries,
      catalogIds: new Set(identity.catalogs.map((c) => c.id)),
      now,
      onStored: (stored) => processing.schedule(stored),
      downloadTimeoutMs: options.downloadTimeoutMs ?? 60_000,
      tokens: new TokenIssuer(identity, options.tokenLifetimeMs ?? TOKEN_LIFETIME_MS, now),
      requests: new RequestLog(),
      faults: { ...NO_FAULTS, ...defined(options.faults) },
      random: options.random,
    }),
    options.tls,
  );
  const gate = serve(
    gateRequestListener({
      bucket,
      keys: {
        accessKeyId: identity.bucket.access_key_id,
        secretAccessKey: identity.bucket.secret_access_key,
        region: identity.bucket.bucket_region,
      },
    }),
    options.tls,
  );
  let apiPort: number;
  let s3Port: number;
  try {
    apiPort = await listen(api, options.port ?? 0);
    s3Port = await listen(gate, options.s3Port ?? 0);
  } catch (error) {
    api.close();
    gate.close();
    await bucket.close();
    throw error;
  }
  processing.start();
  const origin = `${options.tls ? 'https' : 'http'}://${options.hostName ?? '127.0.0.1'}`;
  const info: SandboxInfo = {
    base_url: `${origin}:${apiPort}`,
    organization_id: identity.organization_id,
    client_id: identity.client.client_id,
    client_secret: identity.client.client_secret,
    catalogs: identity.catalogs.map(({ id, name }) => ({ id, name })),
    bucket: {
      bucket_name: identity.bucket.bucket_name,
      bucket_region: identity.bucket.bucket_region,
      endpoint: `${origin}:${s3Port}`,
      access_key_id: identity.bucket.access_key_id,
      secret_access_key: identity.bucket.secret_access_key,
    },
  };
  let closing: Promise<void> | undefined;
  return {
    info,
    close: () =>
      (closing ??= (async () => {
        await Promise.all([closeServer(api), closeServer(gate)]);
        await processing.close();
        await entries.close();
        await bucket.close();
      })()),
  };
}
