/**
 * The contract's bucket and settings operations: browsing the delivery bucket over the
 * profile's S3 credentials (core/bucket) and the app's settings (core/settings).
 */
import { posix } from 'node:path';

import { deleteObject, listBucket, readObject } from '../core/bucket/bucket-browser.js';
import type { CoreServices } from '../core/services.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { createS3Client } from '../core/storage/s3-client.js';
import type { RequestOf, ResultOf } from './contract.js';

type Names =
  | 'listBucket'
  | 'readBucketObject'
  | 'downloadBucketObject'
  | 'deleteBucketObject'
  | 'getSettings'
  | 'setSettings';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };

/** Text previews (INFO.json, a CSV export's first rows) are cut at this size. */
const PREVIEW_BYTES = 256 * 1024;
/** Downloads travel through the contract as base64: larger objects need an S3 client. */
const DOWNLOAD_BYTES = 64 * 1024 * 1024;

/** The handlers for the bucket and settings domains, for the router. */
export function bucketHandlers(services: CoreServices): Handlers {
  const settings = new SettingsStore(services.dataDir);
  const withBucket = async <T>(
    profile: string,
    work: (s3: ReturnType<typeof createS3Client>, bucket: string) => Promise<T>,
  ): Promise<T> => {
    const connection = await services.connections.get(profile);
    const s3 = createS3Client(connection.bucket);
    try {
      return await work(s3, connection.bucket.bucket);
    } finally {
      s3.destroy();
    }
  };

  return {
    async listBucket({ profile, prefix }) {
      return withBucket(profile, (s3, bucket) => listBucket(s3, bucket, prefix));
    },
    async readBucketObject({ profile, key }) {
      return withBucket(profile, async (s3, bucket) => {
        const { bytes, size, truncated } = await readObject(s3, bucket, key, PREVIEW_BYTES);
        return { key, size, text: new TextDecoder().decode(bytes), truncated };
      });
    },
    async downloadBucketObject({ profile, key }) {
      return withBucket(profile, async (s3, bucket) => {
        const { bytes, size, truncated } = await readObject(s3, bucket, key, DOWNLOAD_BYTES);
        if (truncated) {
          throw new Error(
            `${key} is ${size} bytes, more than the app downloads (${DOWNLOAD_BYTES}); use an S3 client for it.`,
          );
        }
        return {
          key,
          fileName: posix.basename(key),
          size,
          base64: Buffer.from(bytes).toString('base64'),
        };
      });
    },
    async deleteBucketObject({ profile, key }) {
      await withBucket(profile, (s3, bucket) => deleteObject(s3, bucket, key));
      return { deleted: true };
    },
    async getSettings() {
      return settings.get();
    },
    async setSettings(change) {
      return settings.set(change);
    },
  };
}
