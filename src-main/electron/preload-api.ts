import type { IpcRenderer, IpcRendererEvent, WebUtils } from 'electron';

import {
  type CourierApi,
  type EventName,
  eventNames,
  grantPickedFiles,
  type OperationName,
  operations,
} from '../ipc/contract.js';

/**
 * Builds the object the preload exposes as `window.courier`: one named method per contract
 * operation, `on` for events (stripping Electron's event object, returning the unsubscribe).
 * It never hands out `ipcRenderer` itself.
 */
export function createPreloadApi(
  ipc: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>,
  webUtils: Pick<WebUtils, 'getPathForFile'>,
): CourierApi {
  const api: Record<string, unknown> = {};
  for (const [name, op] of Object.entries(operations) as [OperationName, { channel: string }][]) {
    api[name] = (request: unknown) => ipc.invoke(op.channel, request);
  }
  // Only a real File the user dropped or picked has a path: the renderer can't forge one. Its
  // content proof is read here too, so main can check the path's content is the File's.
  api.grantFiles = (files: Parameters<CourierApi['grantFiles']>[0]) =>
    grantPickedFiles(
      files,
      (request) =>
        ipc.invoke(operations.grantFiles.channel, request) as Promise<
          Awaited<ReturnType<CourierApi['grantFiles']>>
        >,
      (file) => webUtils.getPathForFile(file as File) || undefined,
    );
  api.on = (event: EventName, listener: (payload: unknown) => void) => {
    if (!eventNames.includes(event)) throw new Error(`Unknown event: ${String(event)}`);
    const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipc.on(event, forward);
    return () => void ipc.removeListener(event, forward);
  };
  return Object.freeze(api) as CourierApi;
}
