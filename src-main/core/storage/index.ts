/** The storage layer's public surface: what the CLI, the router and delivery import. */
export { assertDeliveryKey, AUDIO_ROOT, deliveryKey, deliveryPrefix } from './object-key.js';
export { choosePartSize, PART_LIMITS } from './part-size.js';
export type { ProgressSnapshot } from './progress.js';
export type { FileOutcome, UploadItem } from './resumable-upload.js';
export { createS3Client, type S3ClientOptions, type S3Target } from './s3-client.js';
export type { RestartReason, UploadEvent, UploadOptions } from './upload-context.js';
export { uploadDirectory } from './upload-directory.js';
export { planDirectoryUpload } from './upload-plan.js';
export { DEFAULT_CONCURRENCY, UploadQueue, type UploadReport } from './upload-queue.js';
