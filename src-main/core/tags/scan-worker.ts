/** A worker thread of `scanFolder`: reads the chunks of files it is sent and posts the results. */
import { parentPort } from 'node:worker_threads';

import type { FileReadResult } from '../model/read-result.js';
import { readTrackFiles } from './read-track-file.js';

/** A chunk of work from the scan's main thread. */
export interface ScanChunkRequest {
  id: number;
  root: string;
  paths: string[];
  concurrency: number;
}

/** The results of one chunk, in its order. */
export interface ScanChunkResponse {
  id: number;
  results: FileReadResult[];
}

parentPort?.on('message', (request: ScanChunkRequest) => {
  void readTrackFiles(request.root, request.paths, request.concurrency).then((results) => {
    const response: ScanChunkResponse = { id: request.id, results };
    parentPort?.postMessage(response);
  });
});
