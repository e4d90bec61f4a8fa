/**
 * The tags Web Worker: answers the `TagRequest`s from the pool in `tag-reader.ts` with each
 * file's `FileReadResult`, so parsing never blocks the UI thread. The files of a batch are read
 * concurrently; answers finished in the same turn go back in one message.
 */
import { readAndProve, readFileTags } from './read-file.js';
import type { TagRequest, TagResponse } from './tag-reader.js';

/** The part of the worker global scope used here (the DOM lib types `self` as a Window). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<TagRequest[]>) => void): void;
  postMessage(message: TagResponse[]): void;
}

const scope = self as unknown as WorkerScope;
let outbox: TagResponse[] = [];

function answer(response: TagResponse): void {
  if (outbox.length === 0) {
    setTimeout(() => {
      const batch = outbox;
      outbox = [];
      scope.postMessage(batch);
    }, 0);
  }
  outbox.push(response);
}

scope.addEventListener('message', (event) => {
  for (const { key, file, relativePath, prove } of event.data) {
    if (prove) void readAndProve(file, relativePath).then((read) => answer({ key, ...read }));
    else void readFileTags(file, relativePath).then((result) => answer({ key, result }));
  }
});
