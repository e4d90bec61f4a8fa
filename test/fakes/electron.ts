/**
 * The fake of Electron: its runtime can't run here (no binary), so main-side
 * tests alias `electron` to this module (vitest.config.ts). It records what the shell asks of
 * Electron and lets a test play the renderer's or the OS's part.
 */
import { EventEmitter } from 'node:events';

let nextContentsId = 1;

type WindowOpenHandler = (details: { url: string }) => { action: 'allow' | 'deny' };

/** A web contents: an event emitter with the handlers the shell installs. */
export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  windowOpenHandler: WindowOpenHandler | null = null;
  readonly sent: Array<[string, unknown]> = [];

  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.windowOpenHandler = handler;
  }

  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }

  /** Emits a cancellable event the way Electron does; returns whether it was prevented. */
  emitCancellable(name: string, ...args: unknown[]): boolean {
    let prevented = false;
    this.emit(name, { preventDefault: () => (prevented = true) }, ...args);
    return prevented;
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly windows: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  constructor(readonly options: unknown) {
    super();
    BrowserWindow.windows.push(this);
  }
  static getAllWindows(): BrowserWindow[] {
    return BrowserWindow.windows;
  }
}

type Handler = (event: unknown, ...args: unknown[]) => unknown;

export const ipcMain = {
  handlers: new Map<string, Handler>(),
  handle(channel: string, handler: Handler): void {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  },
  /** Plays a renderer invoking a channel. */
  async invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, ...args);
  },
};

const rendererEvents = new EventEmitter();

export const ipcRenderer = {
  invocations: [] as Array<[string, unknown]>,
  async invoke(channel: string, request: unknown): Promise<unknown> {
    this.invocations.push([channel, request]);
    return { ok: true, value: null };
  },
  on(channel: string, listener: (...args: unknown[]) => void) {
    rendererEvents.on(channel, listener);
    return this;
  },
  removeListener(channel: string, listener: (...args: unknown[]) => void) {
    rendererEvents.removeListener(channel, listener);
    return this;
  },
  /** Plays main sending an event to the renderer. */
  emitFromMain(channel: string, payload: unknown): void {
    rendererEvents.emit(channel, { sender: this }, payload);
  },
  listenerCount(channel: string): number {
    return rendererEvents.listenerCount(channel);
  },
};

export const contextBridge = {
  exposed: {} as Record<string, unknown>,
  exposeInMainWorld(key: string, api: unknown): void {
    this.exposed[key] = api;
  },
};

export const webUtils = {
  /** Electron answers '' for a File that did not come from the OS; so does the fake. */
  getPathForFile(file: unknown): string {
    return (file as { path?: string }).path ?? '';
  },
};

export const shell = {
  opened: [] as string[],
  /** Folders shown in the file manager; `openPathAnswer` is what the OS says ('' = done). */
  openedPaths: [] as string[],
  openPathAnswer: '',
  async openExternal(url: string): Promise<void> {
    this.opened.push(url);
  },
  async openPath(path: string): Promise<string> {
    this.openedPaths.push(path);
    return this.openPathAnswer;
  },
};

/** The save dialog: records what it was asked and answers what the test set (the user's pick). */
export const dialog = {
  asked: [] as Array<{ parent: unknown; options: { defaultPath?: string; title?: string } }>,
  answer: { canceled: true, filePath: '' } as { canceled: boolean; filePath: string },
  async showSaveDialog(
    ...args: [unknown, { defaultPath?: string }] | [{ defaultPath?: string }]
  ): Promise<{ canceled: boolean; filePath: string }> {
    const [parent, options] = args.length === 2 ? args : [null, args[0]];
    this.asked.push({ parent, options });
    return this.answer;
  },
};

export function createSession() {
  return {
    requestHandler: null as null | ((...args: unknown[]) => void),
    checkHandler: null as null | ((...args: unknown[]) => boolean),
    setPermissionRequestHandler(handler: (...args: unknown[]) => void) {
      this.requestHandler = handler;
    },
    setPermissionCheckHandler(handler: (...args: unknown[]) => boolean) {
      this.checkHandler = handler;
    },
  };
}

export const session = { defaultSession: createSession() };

export const app = {
  isPackaged: false,
  getPath: (name: string) => `/fake/${name}`,
};

export default {
  app,
  BrowserWindow,
  contextBridge,
  dialog,
  ipcMain,
  ipcRenderer,
  session,
  shell,
  webUtils,
};
