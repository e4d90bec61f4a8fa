/**
 * A worker thread of `findDuplicateAudio`: locates and hashes the audio of the files it is sent,
 * reading with blocking calls (this thread does nothing else).
 */
import { type AudioChunk, type FileAudioResult, readAudioChunk } from './audio-hash.js';
import { serveChunks } from './worker-lanes.js';

serveChunks<AudioChunk, FileAudioResult[], number>((chunk, progress) =>
  readAudioChunk(chunk, 'blocking', progress),
);
