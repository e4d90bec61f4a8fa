/**
 * The renderer's one way to reach main. Under Electron the preload has put the API on
 * `window.courier`; in a plain browser (the browser host) the same API is carried over a
 * WebSocket. Views and state never know which.
 */
import {
  type CourierApi,
  type Envelope,
  type EventName,
  type EventPayloads,
  fail,
  grantPickedFiles,
  type GrantResult,
  type OperationName,
  operations,
} from '../../src-main/ipc/contract.js';

declare global {
  interface Window {
    courier?: CourierApi;
  }
}

const TOKEN_KEY = 'courier.token';

/** The API for this window: the preload's when present, the browser host's otherwise. */
export function connectBridge(): CourierApi {
  return window.courier ?? createWebSocketApi(takeToken());
}

/** Reads the per-run token from the URL fragment once, then keeps it out of the address bar. */
function takeToken(): string {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/**
 * Why the socket could not open, as the user can act on it: the host is gone, this tab has no
 * key (a new tab: the key is only in the address the host printed, and in the tab that opened
 * it), or the key is no longer the host's (it changes each time the host starts).
 */
async function refusalMessage(token: string): Promise<string> {
  const reopen = 'open the address the browser host printed when it started (it ends in #token=…)';
  const running = await fetch(`${location.origin}/`, { method: 'HEAD', cache: 'no-store' })
    .then((answer) => answer.ok)
    .catch(() => false);
  if (!running) {
    return `The Courier browser host at ${location.host} is not running: start it again (npm run web) and ${reopen}.`;
  }
  return token
    ? `The Courier browser host did not accept this tab's key (a key lasts while the host runs; it was restarted): ${reopen}.`
    : `This tab has no key for the Courier browser host (a new tab does not get one): ${reopen}.`;
}

type Pending = (result: Envelope<unknown>) => void;
type AnyListener = (payload: unknown) => void;

function createWebSocketApi(token: string): CourierApi {
  const url = `ws://${location.host}/ipc?token=${encodeURIComponent(token)}`;
  const pending = new Map<number, Pending>();
  const listeners = new Map<string, Set<AnyListener>>();
  let nextId = 1;
  let socket: Promise<WebSocket> | null = null;

  const open = (): Promise<WebSocket> => {
    socket ??= new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => void refusalMessage(token).then((message) => reject(new Error(message)));
      ws.onclose = () => {
        socket = null;
        for (const settle of pending.values()) {
          settle(fail('disconnected', 'Lost the connection to the Courier host.'));
        }
        pending.clear();
      };
      ws.onmessage = (message) => {
        const data = JSON.parse(String(message.data)) as {
          id?: number | null;
          result?: Envelope<unknown>;
          event?: string;
          payload?: unknown;
        };
        if (data.event) {
          for (const listener of listeners.get(data.event) ?? []) listener(data.payload);
        } else if (typeof data.id === 'number' && data.result) {
          pending.get(data.id)?.(data.result);
          pending.delete(data.id);
        }
      };
    });
    return socket;
  };

  const invoke = async (channel: string, request: unknown): Promise<Envelope<unknown>> => {
    let ws: WebSocket;
    try {
      ws = await open();
    } catch (error) {
      return fail('disconnected', (error as Error).message);
    }
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, channel, request }));
    });
  };

  const api: Record<string, unknown> = {};
  for (const [name, op] of Object.entries(operations) as [OperationName, { channel: string }][]) {
    api[name] = (request: unknown) => invoke(op.channel, request);
  }
  api.grantFiles = (files: Parameters<CourierApi['grantFiles']>[0]) =>
    grantPickedFiles(
      files,
      (request) => invoke(operations.grantFiles.channel, request) as Promise<Envelope<GrantResult>>,
    );
  api.on = <E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void) => {
    const set = listeners.get(event) ?? new Set<AnyListener>();
    listeners.set(event, set);
    set.add(listener as AnyListener);
    void open().catch(() => undefined);
    return () => set.delete(listener as AnyListener);
  };
  return api as CourierApi;
}
