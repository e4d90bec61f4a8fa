import type { IpcMain, IpcMainInvokeEvent } from 'electron';

import { fail, operations } from '../ipc/contract.js';
import type { Router } from '../ipc/router.js';

/**
 * Registers one `ipcMain.handle` per contract channel, every one through the same wrapper:
 * a message from a sender we don't trust gets a `forbidden` envelope and never reaches core.
 */
export function registerIpcHandlers(
  ipcMain: Pick<IpcMain, 'handle'>,
  router: Router,
  isTrusted: (event: IpcMainInvokeEvent) => boolean,
): void {
  for (const { channel } of Object.values(operations)) {
    ipcMain.handle(channel, async (event, request: unknown) => {
      if (!isTrusted(event)) return fail('forbidden', `${channel}: sender is not the app window`);
      return router.dispatch(channel, request);
    });
  }
}
