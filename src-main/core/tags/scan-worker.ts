/** A worker thread of `scanFolder`: reads the chunks of files it is sent and posts the results. */
import { parentPort } from 'node:worker_threads';

import { readTrackFiles } from './read-track-file.js';

/** A chunk of work from the scan's main thread. */
export interface ScanChunkRequest {
  id: number;
  root: string;
  paths: string[];
  concurrency: number;
}

parentPort?.on('message', (request: ScanChunkRequest) => {
  void readTrackFiles(request.root, request.paths, request.concurrency).then((results) =>
    parentPort?.postMessage({ id: request.id, results }),
  );
});
