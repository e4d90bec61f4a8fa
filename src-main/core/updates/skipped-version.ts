/**
 * The version the user put off with "Later", kept in `<dataDir>/updates.json` so the app stays
 * quiet about it across restarts until a newer one is published.
 */
import { join } from 'node:path';

import { readJsonIfExists, writeJsonAtomic } from '../files/atomic-file.js';
import { parseVersion, type Version } from './version-order.js';

/** Where the put-off version is kept. */
export interface SkippedVersionStore {
  read(): Promise<Version | null>;
  write(version: string): Promise<void>;
}

/** The store in the data directory; a missing or hand-broken file means nothing was put off. */
export function skippedVersionFile(dataDir: string): SkippedVersionStore {
  const path = join(dataDir, 'updates.json');
  return {
    async read() {
      try {
        const saved = await readJsonIfExists<{ skippedVersion?: unknown }>(path);
        const text = saved?.skippedVersion;
        return typeof text === 'string' ? parseVersion(text) : null;
      } catch {
        return null;
      }
    },
    async write(version) {
      await writeJsonAtomic(path, { skippedVersion: version });
    },
  };
}
