/**
 * The contract's app and opened-file operations: showing the data folder and the logs, and
 * reading the tags of files the OS handed the app (the renderer has no `File` for those, so
 * their tags are read here, into the same result the renderer's tag workers produce), and
 * finding the library's files whose audio is the same (core's `findDuplicateAudio`, on the
 * granted paths).
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { CourierError } from '../core/errors.js';
import type { CoreServices } from '../core/services.js';
import { findDuplicateAudio } from '../core/tags/duplicates.js';
import { readTrackFile, toRelative } from '../core/tags/read-track-file.js';
import type { EventName, EventPayloads, RequestOf, ResultOf } from './contract.js';
import { progressPace } from './progress-pace.js';
import type { HostAdapter } from './router.js';

type Names = 'openLogs' | 'openDataFolder' | 'readFileTags' | 'findDuplicateAudio';
type Emit = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };

/** The handlers for the app's folders and main-side tag reading, for the router. */
export function appHandlers(services: CoreServices, host: HostAdapter, emit: Emit): Handlers {
  /** Opens a folder where the door can (the app); the browser host only says where it is. */
  const show = async (path: string): Promise<ResultOf<'openLogs'>> => {
    await mkdir(path, { recursive: true });
    if (!host.openFolder) return { path, opened: false };
    await host.openFolder(path);
    return { path, opened: true };
  };

  return {
    async openLogs() {
      return show(join(services.dataDir, 'logs'));
    },
    async openDataFolder() {
      return show(services.dataDir);
    },
    async readFileTags({ files }) {
      const results: ResultOf<'readFileTags'>['results'] = [];
      for (const { id, relativePath } of files) {
        const { path } = await services.grants.whenGranted(id);
        results.push({ id, result: await readTrackFile(rootOf(path, relativePath), path) });
      }
      return { results };
    },
    async findDuplicateAudio({ ids }) {
      // The paths are main's own, from the grants: the renderer names files by id only.
      const byPath = new Map<string, string>();
      const files: { path: string; localPath: string }[] = [];
      for (const id of new Set(ids)) {
        const { path } = await services.grants.whenGranted(id);
        byPath.set(path, id);
        files.push({ path, localPath: path });
      }
      const pace = progressPace();
      const result = await findDuplicateAudio(files, {
        onProgress: (p) => {
          const done = p.phase === 'locating' ? p.located : p.bytes;
          const total = p.phase === 'locating' ? p.files : p.total;
          if (pace(done, total))
            emit('library:duplicates-progress', { phase: p.phase, done, total });
        },
      });
      const id = (path: string) => byPath.get(path)!;
      return {
        groups: result.groups.map((group) => group.map(id)),
        unreadable: result.unreadable.map((u) => ({ id: id(u.path), message: u.message })),
        bytes: result.bytes,
      };
    },
  };
}

/**
 * The folder a granted file was handed in, from its path and the relative path it was shown
 * under (`Album/01.flac` → the folder holding `Album`). A relative path the granted path does
 * not end in is refused: it would name the file's draft after some other file.
 */
function rootOf(path: string, relativePath: string): string {
  let root = path;
  for (let i = relativePath.split('/').length; i > 0; i--) root = dirname(root);
  if (toRelative(root, path) !== relativePath.normalize('NFC')) {
    throw new CourierError(
      'invalid_request',
      `files:readTags: ${relativePath} is not where the granted file is.`,
    );
  }
  return root;
}
