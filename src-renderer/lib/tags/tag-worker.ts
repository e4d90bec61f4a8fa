/**
 * The tags Web Worker: answers each `TagRequest` from the pool in `tag-reader.ts` with the
 * file's `FileReadResult`, so parsing never blocks the UI thread.
 */
import { readFileTags } from './read-file.js';
import type { TagRequest, TagResponse } from './tag-reader.js';

/** The part of the worker global scope used here (the DOM lib types `self` as a Window). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<TagRequest>) => void): void;
  postMessage(message: TagResponse): void;
}

const scope = self as unknown as WorkerScope;

scope.addEventListener('message', (event) => {
  const { key, file, relativePath } = event.data;
  void readFileTags(file, relativePath).then((result) => scope.postMessage({ key, result }));
});
