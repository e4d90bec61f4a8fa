/**
 * Files the OS hands the running app (a second launch's arguments, a drop on the dock icon)
 * become library files the way dropped ones do: a folder brings every file under it, audio is
 * granted (the user chose these paths, through the OS), the rest is listed with the reason.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

import type { FileGrants } from '../core/files/file-grants.js';
import { precheckFile } from '../core/model/read-result.js';
import { listFiles, toRelative } from '../core/tags/scan-folder.js';
import type { EventPayloads } from '../ipc/contract.js';

type OpenPaths = EventPayloads['library:open-paths'];

/** Grants the audio of `paths` (files, or folders walked) for the `library:open-paths` event. */
export async function grantOpenedPaths(
  paths: readonly string[],
  grants: FileGrants,
): Promise<OpenPaths> {
  const result: OpenPaths = { files: [], refused: [] };
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (!info) {
      result.refused.push({ relativePath: basename(path), reason: 'not found on disk' });
      continue;
    }
    // A folder's files are named under it (`Album/01.flac`), as when the folder is dropped.
    const root = dirname(path);
    const files = info.isDirectory() ? await listFiles(path).catch(() => null) : [path];
    if (!files) {
      result.refused.push({ relativePath: basename(path), reason: 'the folder could not be read' });
      continue;
    }
    for (const file of files) {
      const relativePath = toRelative(root, file);
      // Settled by name, as the tag readers settle them: not audio, or audio Courier can't send.
      const skipped = precheckFile(relativePath, 1);
      if (skipped) {
        result.refused.push({ relativePath, reason: skipped.findings[0]!.message });
        continue;
      }
      try {
        const granted = await grants.grant(file);
        result.files.push({
          id: granted.id,
          name: basename(file),
          relativePath,
          size: granted.size,
          lastModified: Math.trunc(granted.mtimeMs),
        });
      } catch (error) {
        result.refused.push({ relativePath, reason: (error as Error).message });
      }
    }
  }
  return result;
}
