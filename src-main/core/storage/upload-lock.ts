import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

import { CourierError } from '../errors.js';

/**
 * A lock file beside a journal so that two processes (the app and the CLI, or two CLI runs)
 * never run multipart uploads for the same key at once. It holds the owner's pid; a lock whose
 * process is gone (a crash, `kill -9`) is stale and taken over.
 */
export async function acquireKeyLock(journalPath: string): Promise<() => Promise<void>> {
  const path = `${journalPath}.lock`;
  await mkdir(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (owner && isAlive(owner)) {
        throw new CourierError(
          'upload-locked',
          `Another Courier process (pid ${owner}) is uploading this file; wait for it to finish or quit it.`,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new CourierError('upload-locked', 'Could not take the upload lock; try again.');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
