/**
 * The pre-flight of a delivery: everything that can fail for good is tried before the first byte
 * is uploaded, so a wrong catalog, a refused secret, an unreachable service or a bucket that
 * refuses writes stops the delivery at once with one line, with nothing uploaded and nothing to
 * resume.
 */
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

import type { Connection } from '../connection.js';
import { CourierError, unknownCatalogCode } from '../errors.js';
import type { Profile } from '../profiles/profile.js';
import { createS3Client } from '../storage/s3-client.js';
import type { DeliveryRecord } from './delivery-record.js';

/**
 * A permanent problem found before anything was uploaded. Its code is `unknown_catalog` when
 * the profile names no such catalog (the command must change: the README's usage error), else
 * `preflight`.
 */
export class PreflightError extends CourierError {
  constructor(message: string, options?: { cause?: unknown; code?: typeof unknownCatalogCode }) {
    super(options?.code ?? 'preflight', message, options);
    this.name = 'PreflightError';
  }
}

const describe = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();

/**
 * The error for `catalogId` when `profile` does not name it (it cannot be delivered to), if so:
 * the pre-flight throws it, a plan reports it as a finding.
 */
export function unknownCatalog(
  profile: Pick<Profile, 'name' | 'catalogs'>,
  catalogId: string,
): PreflightError | undefined {
  const { catalogs } = profile;
  if (catalogs.some((c) => c.id === catalogId)) return undefined;
  const known = catalogs.map((c) => `${c.id} (${c.name})`).join(', ') || 'none';
  return new PreflightError(
    `catalog ${catalogId} is not one of profile "${profile.name}"'s catalogs (${known}); check the id, or add the catalog to the profile`,
    { code: unknownCatalogCode },
  );
}

/** Checks the catalog, the credentials and the bucket for `record`; throws `PreflightError`. */
export async function preflight(args: {
  record: DeliveryRecord;
  connection: Connection;
  signal?: AbortSignal;
  s3?: S3Client;
}): Promise<void> {
  const { record, connection } = args;
  const { profile } = connection;
  const unknown = unknownCatalog(profile, record.catalogId);
  if (unknown) throw unknown;
  try {
    await connection.api.tokens.get();
  } catch (error) {
    throw new PreflightError(
      `could not obtain a token from ${profile.base_url} for profile "${profile.name}": ${describe(error)}`,
      { cause: error },
    );
  }
  const probeKey = record.files[0]?.key;
  if (!probeKey) return;
  // A multipart upload that is created and aborted proves the right to write under the folder
  // without leaving an object the service could take for a delivered file.
  const s3 = args.s3 ?? createS3Client(connection.bucket);
  try {
    const created = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: connection.bucket.bucket, Key: probeKey }),
      { abortSignal: args.signal },
    );
    await s3
      .send(
        new AbortMultipartUploadCommand({
          Bucket: connection.bucket.bucket,
          Key: probeKey,
          UploadId: created.UploadId,
        }),
      )
      .catch(() => undefined);
  } catch (error) {
    throw new PreflightError(
      `the bucket ${connection.bucket.bucket} refused a write under ${probeKey.slice(0, probeKey.lastIndexOf('/') + 1)}: ${describe(error)}; check the profile's bucket, region and access key`,
      { cause: error },
    );
  } finally {
    if (!args.s3) s3.destroy();
  }
}
