/** A worker thread of `findDuplicateAudio`: hashes the audio of the files it is sent. */
import { type HashChunk, type Hashed, hashPayloads } from './audio-hash.js';
import { serveChunks } from './worker-lanes.js';

serveChunks<HashChunk, Hashed[], number>((chunk, progress) => hashPayloads(chunk, progress));
