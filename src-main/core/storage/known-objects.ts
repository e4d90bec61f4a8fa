/**
 * What the bucket already holds in the folders an upload run writes to, read with one listing
 * per folder (1,000 keys a request) before the first file, instead of a HeadObject per file:
 * with many small files the requests, not the bytes, are what take the time. A key the listing
 * didn't cover is asked about with HeadObject as before.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

/** An object as the listing showed it. */
export interface ListedObject {
  size: number;
  /** Without quotes. */
  etag: string;
}

/** A folder is listed when the run writes at least this many of its keys. */
const MIN_KEYS_TO_LIST = 16;

/** The folder of a key: everything up to its last slash. */
function folderOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

/** The listings of the folders an upload writes to. */
export class KnownObjects {
  readonly #listed = new Set<string>();
  readonly #objects = new Map<string, ListedObject>();

  /**
   * Lists every folder the run writes `MIN_KEYS_TO_LIST` keys or more into. A folder whose listing
   * fails (a policy that allows writes but not listing, say) is left to HeadObject.
   */
  static async read(
    client: S3Client,
    bucket: string,
    keys: readonly string[],
    signal?: AbortSignal,
  ): Promise<KnownObjects> {
    const known = new KnownObjects();
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(folderOf(key), (counts.get(folderOf(key)) ?? 0) + 1);
    for (const [folder, count] of counts) {
      if (count < MIN_KEYS_TO_LIST || folder === '') continue;
      try {
        await known.#list(client, bucket, folder, signal);
        known.#listed.add(folder);
      } catch (error) {
        if (signal?.aborted) throw error;
      }
    }
    return known;
  }

  async #list(client: S3Client, bucket: string, folder: string, signal?: AbortSignal) {
    const found = new Map<string, ListedObject>();
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: folder,
          Delimiter: '/',
          ContinuationToken: token,
        }),
        { abortSignal: signal },
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        found.set(object.Key, {
          size: object.Size ?? 0,
          etag: (object.ETag ?? '').replaceAll('"', ''),
        });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    for (const [key, object] of found) this.#objects.set(key, object);
  }

  /**
   * What the listing says of `key`: the object, `null` when its folder was listed without it, or
   * `undefined` when the listing didn't cover it (ask with HeadObject).
   */
  lookup(key: string): ListedObject | null | undefined {
    if (!this.#listed.has(folderOf(key))) return undefined;
    return this.#objects.get(key) ?? null;
  }
}
