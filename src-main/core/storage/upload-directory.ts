import type { S3Target } from './s3-client.js';
import type { UploadEvent, UploadOptions } from './upload-context.js';
import { planDirectoryUpload } from './upload-plan.js';
import { UploadQueue, type UploadReport } from './upload-queue.js';

/**
 * Uploads every audio file under `dir` to `delivery/audio/<folder>/` and reports each file's
 * outcome: the one call behind `courier upload`. Re-running it after an interruption resumes;
 * `stopSignal` stops and keeps everything resumable, `signal` cancels (aborting the multipart
 * uploads it holds and clearing their journals).
 */
export async function uploadDirectory(args: {
  dir: string;
  folder: string;
  target: S3Target;
  dataDir: string;
  options?: UploadOptions;
  onEvent?: (event: UploadEvent) => void;
  /** Cancels: aborts the multipart uploads this run holds and clears their journals. */
  signal?: AbortSignal;
  /** Stops but keeps uploads and journals for the next run to resume (quit, Ctrl-C). */
  stopSignal?: AbortSignal;
  /** Receives the queue before it starts, for pause / resume (the app's buttons). */
  onQueue?: (queue: UploadQueue) => void;
}): Promise<UploadReport> {
  const items = await planDirectoryUpload(args.dir, args.folder);
  const queue = new UploadQueue({
    target: args.target,
    dataDir: args.dataDir,
    items,
    options: args.options,
  });
  if (args.onEvent) queue.on(args.onEvent);
  args.signal?.addEventListener('abort', () => queue.cancel(), { once: true });
  if (args.signal?.aborted) queue.cancel();
  args.stopSignal?.addEventListener('abort', () => queue.stop(), { once: true });
  if (args.stopSignal?.aborted) queue.stop();
  args.onQueue?.(queue);
  return queue.start();
}
