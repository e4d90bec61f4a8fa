/**
 * What the app's door does on the machine for the contract: ask where to save a download (the
 * save dialog, so main picks the path and the renderer never names one) and show a folder in
 * the file manager. Electron's modules are passed in, so tests can play them.
 */
import { join } from 'node:path';

import type { BaseWindow, Dialog, Shell } from 'electron';

import { CourierError } from '../core/errors.js';

/**
 * The save dialog for a download, offering the Downloads folder and the object's name (already
 * made safe by core). Resolves to the chosen path, or null when the user cancels.
 */
export function createSavePathChooser(
  dialog: Pick<Dialog, 'showSaveDialog'>,
  downloadsDir: () => string,
  window: () => BaseWindow | null,
): (fileName: string) => Promise<string | null> {
  return async (fileName) => {
    const options = {
      title: 'Save from the delivery bucket',
      defaultPath: join(downloadsDir(), fileName),
      properties: ['createDirectory', 'showOverwriteConfirmation'] as Array<
        'createDirectory' | 'showOverwriteConfirmation'
      >,
    };
    const parent = window();
    const answer = parent
      ? await dialog.showSaveDialog(parent, options)
      : await dialog.showSaveDialog(options);
    return answer.canceled || !answer.filePath ? null : answer.filePath;
  };
}

/** Shows a folder in the OS file manager; what the OS refuses becomes a specific error. */
export function createFolderOpener(
  shell: Pick<Shell, 'openPath'>,
): (path: string) => Promise<void> {
  return async (path) => {
    const problem = await shell.openPath(path);
    if (problem) throw new CourierError('open_failed', `Could not open ${path}: ${problem}`);
  };
}
