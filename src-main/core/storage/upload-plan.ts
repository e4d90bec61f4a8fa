import { readdir } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';

import { deliveryKey } from './object-key.js';
import type { UploadItem } from './resumable-upload.js';

/** Extensions the service's analyzers take as masters (lower case, with the dot). */
export const AUDIO_EXTENSIONS = new Set([
  '.wav',
  '.wave',
  '.aif',
  '.aiff',
  '.aifc',
  '.flac',
  '.mp3',
  '.m4a',
  '.mp4',
  '.aac',
  '.alac',
  '.ogg',
  '.oga',
  '.opus',
  '.wma',
  '.bwf',
  '.caf',
  '.dsf',
  '.dff',
  '.wv',
  '.ape',
]);

/**
 * Lists every audio file under `dir` (recursively, hidden entries skipped, symlinks not
 * followed) with its key under `delivery/audio/<folder>/`, relative paths kept, in a stable order.
 */
export async function planDirectoryUpload(dir: string, folder: string): Promise<UploadItem[]> {
  const items: UploadItem[] = [];
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && AUDIO_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        items.push({
          localPath: path,
          key: deliveryKey(folder, relative(dir, path).split(sep).join('/')),
        });
      }
    }
  };
  await walk(dir);
  return items;
}
