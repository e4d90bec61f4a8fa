import type { S3Client } from '@aws-sdk/client-s3';

import type { ConnectionPool } from '../connection-pool.js';
import { createS3Client } from '../storage/s3-client.js';

/**
 * Runs `work` with an S3 client for the profile's bucket, closed afterwards: a browse, a
 * download or a delete holds no sockets once it is done.
 */
export async function withProfileBucket<T>(
  connections: ConnectionPool,
  profile: string,
  work: (s3: S3Client, bucket: string) => Promise<T>,
): Promise<T> {
  const connection = await connections.get(profile);
  const s3 = createS3Client(connection.bucket);
  try {
    return await work(s3, connection.bucket.bucket);
  } finally {
    s3.destroy();
  }
}
