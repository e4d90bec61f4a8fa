/** A worker thread of `scanFolder`: reads the chunks of files it is sent and posts the results. */
import type { FileReadResult } from '../model/read-result.js';
import { readTrackFiles } from './read-track-file.js';
import { serveChunks } from './worker-lanes.js';

/** A chunk of a scan: files under `root`, read `concurrency` at a time. */
export interface ScanChunk {
  root: string;
  paths: string[];
  concurrency: number;
}

// A worker has nothing else to do: blocking reads spare each file its trips through the pool.
serveChunks<ScanChunk, FileReadResult[]>((chunk) =>
  readTrackFiles(chunk.root, chunk.paths, chunk.concurrency, undefined, true),
);
