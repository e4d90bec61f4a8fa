/**
 * Maps the contract onto core. Used unchanged by Electron's ipcMain and by the browser host:
 * each hands it a channel and an untrusted request and gets an envelope back, never a throw.
 */
import { app } from '../core/app-info.js';
import { CourierError } from '../core/errors.js';
import { FileInspector } from '../core/files/file-inspection.js';
import { grantPicked, MissBudget } from '../core/files/grant-picked.js';
import { LibraryLoads } from '../core/library/library-loads.js';
import { patchLibrarySession, saveLibrarySession } from '../core/library/library-session.js';
import { sentLoad } from '../core/library/sent-load.js';
import { sentRow } from '../core/library/session-schema.js';
import { redactor } from '../core/log.js';
import type { CoreServices } from '../core/services.js';
import type { UpdateService } from '../core/updates/update-service.js';
import { appHandlers } from './app-handlers.js';
import { bucketHandlers } from './bucket-handlers.js';
import {
  type Envelope,
  type EventName,
  type EventPayloads,
  fail,
  type FileRef,
  ok,
  type OperationName,
  operationOf,
  parseRequest,
  type RequestOf,
  type ResultOf,
} from './contract.js';
import { deliveryHandlers, type TransferHooks } from './delivery-handlers.js';
import { ledgerHandlers } from './ledger-handlers.js';
import { profileHandlers } from './profile-handlers.js';
import { updateHandlers } from './update-handlers.js';

/** What differs between the doors: who they are and how they find a dropped file on disk. */
export interface HostAdapter {
  kind: 'electron' | 'web';
  /**
   * Where a file the user dropped or picked may be on disk, best first (none when the door
   * can't tell); core grants one only if it is the file the page describes and its content
   * matches the page's proof.
   */
  locate(ref: FileRef): Promise<readonly string[]>;
  /**
   * The browser host: the folders a located file's real path must stay below, with no hidden
   * folder on the way (Electron's paths come from the OS: anywhere).
   */
  within?(): Promise<readonly string[]>;
  /** Electron: the OS signals of running deliveries (progress bar, keep-awake, quit pause). */
  transfers?: TransferHooks;
  /** Electron: asks the user where to save a download (the save dialog); null when canceled. */
  chooseSavePath?(fileName: string): Promise<string | null>;
  /**
   * The browser host: a one-time address from which the page's own download fetches the
   * object over HTTP (the host streams it, the browser asks where to save it).
   */
  offerDownload?(profile: string, key: string): string;
  /** Electron: shows a folder in the OS file manager. The browser host only reports paths. */
  openFolder?(path: string): Promise<void>;
  /** Electron: the app's updates (the browser host has none: it says they are the app's). */
  updates?: UpdateService;
}

type Handlers = { [N in OperationName]: (request: RequestOf<N>) => Promise<ResultOf<N>> };
type Listener = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

export interface Router {
  /** Validates and runs one request; the result is always an envelope. */
  dispatch(channel: string, raw: unknown): Promise<Envelope<unknown>>;
  /** Subscribes a door to main → renderer events; returns the unsubscribe. */
  subscribe(listener: Listener): () => void;
  /** Sends an event to every subscribed door. */
  emit<E extends EventName>(event: E, payload: EventPayloads[E]): void;
  /** Stops what still writes files (downloads), leaving no partial file; for a quit. */
  close(): Promise<void>;
}

/** Builds the router for one door over the core services. */
export function createRouter(host: HostAdapter, services: CoreServices): Router {
  const listeners = new Set<Listener>();
  const bucket = bucketHandlers(services, host, emitToAll);
  const misses = new MissBudget();
  const inspector = new FileInspector();

  const library = new LibraryLoads(services.dataDir, services.grants, services.log);
  const onChecked = (batch: EventPayloads['library:files-checked']) =>
    emitToAll('library:files-checked', batch);
  const handlers: Handlers = {
    async appInfo() {
      return { ...app, host: host.kind, platform: process.platform, dataDir: services.dataDir };
    },
    async grantFiles({ files }) {
      return grantPicked(
        files,
        {
          locate: (_claim, index) => host.locate(files[index]!),
          ...(host.within ? { within: () => host.within!() } : {}),
        },
        services.grants,
        inspector,
        misses,
        services.log,
      );
    },
    ...profileHandlers(services),
    ...deliveryHandlers(services, emitToAll, host.transfers),
    ...appHandlers(services, host, emitToAll),
    ...bucket.handlers,
    ...ledgerHandlers(services),
    ...updateHandlers(host.updates),
    async loadLibrary() {
      return sentLoad(await library.open(onChecked));
    },
    async libraryRows({ load, offset }) {
      return { rows: (await library.rows(load, offset)).map(sentRow) };
    },
    async restorePreviousLibrary() {
      return sentLoad(await library.restorePrevious(onChecked));
    },
    async saveLibrary({ session }) {
      await saveLibrarySession(services.dataDir, services.grants, session);
      return { saved: true as const };
    },
    async patchLibrary({ patch }) {
      await patchLibrarySession(services.dataDir, services.grants, patch);
      return { saved: true as const };
    },
  };

  function emitToAll<E extends EventName>(event: E, payload: EventPayloads[E]): void {
    for (const listener of listeners) listener(event, payload);
  }
  host.updates?.subscribe((state) => emitToAll('updates:state', state));

  return {
    async dispatch(channel, raw) {
      const name = operationOf(channel);
      if (!name) return fail('unknown_channel', `Unknown operation: ${channel}`);
      const parsed = parseRequest(name, raw);
      if (!parsed.ok) return fail('invalid_request', parsed.message);
      try {
        const handler = handlers[name] as (request: unknown) => Promise<unknown>;
        return ok(await handler(parsed.request));
      } catch (error) {
        // Errors carry what servers answered; none of their tokens or secrets may reach the UI.
        if (error instanceof CourierError) return fail(error.code, redactor.redact(error.message));
        return fail(
          'internal',
          redactor.redact(`${channel} failed unexpectedly: ${messageOf(error)}`),
        );
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit: emitToAll,
    close: () => bucket.close(),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
