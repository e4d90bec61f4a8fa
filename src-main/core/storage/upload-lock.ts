import { dirname } from 'node:path';

import { CourierError } from '../errors.js';
import { acquireProcessLock, LockHeldError } from '../files/process-lock.js';

/**
 * The lock of one upload key, so that two processes (the app and the CLI, or two CLI runs) never
 * run multipart uploads for the same key at once. The OS releases it when its holder dies (a
 * crash, `kill -9`), so a dead process — or a reused pid — never holds it.
 */
export async function acquireKeyLock(journalPath: string): Promise<() => Promise<void>> {
  try {
    const lock = await acquireProcessLock({
      dataDir: dirname(journalPath),
      name: `upload:${journalPath}`,
      what: 'uploading',
      subject: 'This file',
    });
    return () => lock.release();
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    throw new CourierError(
      'upload-locked',
      `Another Courier process${error.holder ? ` (pid ${error.holder.pid})` : ''} is uploading this file; wait for it to finish or quit it.`,
    );
  }
}
