/** The storage layer's public surface: what the CLI, the router and delivery import. */
export { deliveryKey, deliveryPrefix, assertDeliveryKey, AUDIO_ROOT } from './object-key.js';
export { choosePartSize, PART_LIMITS } from './part-size.js';
export { createS3Client, type S3Target, type S3ClientOptions } from './s3-client.js';
export { planDirectoryUpload, AUDIO_EXTENSIONS } from './upload-plan.js';
export { UploadQueue, DEFAULT_CONCURRENCY, type UploadReport } from './upload-queue.js';
export type { FileOutcome, UploadItem } from './resumable-upload.js';
export type { UploadEvent, UploadOptions, RestartReason } from './upload-context.js';
export type { ProgressSnapshot } from './progress.js';
export { uploadDirectory } from './upload-directory.js';
