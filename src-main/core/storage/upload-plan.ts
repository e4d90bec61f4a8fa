import { isDeliverable, listLocalFiles } from '../files/local-files.js';
import { deliveryKey } from './object-key.js';
import type { UploadItem } from './resumable-upload.js';

/**
 * Lists every file a delivery of `dir` holds (`listLocalFiles`, audio by `fileKind`) with its key
 * under `delivery/audio/<folder>/`, relative paths kept, in a stable order.
 */
export async function planDirectoryUpload(dir: string, folder: string): Promise<UploadItem[]> {
  return (await listLocalFiles(dir))
    .filter((f) => isDeliverable(f.kind))
    .map((f) => ({ localPath: f.localPath, key: deliveryKey(folder, f.path) }));
}
