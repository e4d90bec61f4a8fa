/**
 * The tags Web Worker: answers the batches from the pool in `tag-reader.ts` with each file's
 * `FileReadResult` (and proof), so parsing never blocks the UI thread. A batch's files are
 * joined into one Blob and read together (`readGroup`); answers finished in the same turn go
 * back in one message.
 */
import { readFailure } from '../../../src-main/core/model/read-result.js';
import { readGroup } from './read-file.js';
import type { TagBatch, TagResponse } from './tag-reader.js';

/** The part of the worker global scope used here (the DOM lib types `self` as a Window). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<TagBatch>) => void): void;
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
  const { blobs, files } = event.data;
  const answered = new Set<number>();
  // A lone file is its own group: Chromium reads a picked file faster than a Blob made of it.
  const group = blobs.length === 1 ? blobs[0]! : new Blob(blobs);
  readGroup(group, files, (i, read) => {
    answered.add(i);
    answer({ key: files[i]!.key, ...read });
  }).catch((error: unknown) => {
    // Not expected (a bad file is a finding): every file still unanswered gets the error.
    files.forEach(({ key, relativePath }, i) => {
      if (!answered.has(i)) answer({ key, result: readFailure(relativePath, error) });
    });
  });
});
