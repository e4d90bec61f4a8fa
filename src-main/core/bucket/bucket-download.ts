/**
 * Downloading bucket objects of any size without holding them in memory: streamed from S3 to a
 * file the user chose (the app) or to an HTTP response (the browser host).
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';

import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

import { CourierError } from '../errors.js';
import { writeStreamAtomic } from '../files/atomic-file.js';

/** An object's bytes as they arrive, and what S3 says about them. */
export interface ObjectStream {
  size: number;
  body: Readable;
}

/** Opens an object for reading; the caller consumes (or destroys) `body`. */
export async function openObject(
  s3: S3Client,
  bucket: string,
  key: string,
  signal?: AbortSignal,
): Promise<ObjectStream> {
  const answer = await s3
    .send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal })
    .catch((error: unknown) => {
      if ((error as { name?: string }).name === 'NoSuchKey') {
        throw new CourierError('not_found', `${key} is not in the bucket (any more).`);
      }
      throw error;
    });
  if (!answer.Body) throw new CourierError('not_found', `${key} came back without content.`);
  return {
    size: answer.ContentLength ?? 0,
    body: answer.Body as Readable,
  };
}

/** The bytes of a stream, checked to be exactly `size` long, counted as they pass. */
async function* counted(
  key: string,
  object: ObjectStream,
  onBytes: (received: number) => void,
): AsyncGenerator<Uint8Array> {
  let received = 0;
  for await (const chunk of object.body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    onBytes(received);
    yield chunk;
  }
  // A connection cut mid-body can end the stream quietly: the size is the proof it is whole.
  if (received !== object.size) {
    throw new CourierError(
      'download_incomplete',
      `The download of ${key} stopped after ${received} of ${object.size} bytes; try again.`,
    );
  }
}

/** How far a download has come. */
export interface DownloadProgress {
  receivedBytes: number;
  totalBytes: number;
}

/**
 * Saves an object to `destination` (temp file + fsync + rename): the file appears only once
 * every byte is there, and a download that fails or is aborted leaves nothing behind.
 */
export async function saveObjectToFile(
  s3: S3Client,
  bucket: string,
  key: string,
  destination: string,
  options: { signal?: AbortSignal; onProgress?: (progress: DownloadProgress) => void } = {},
): Promise<{ size: number }> {
  let object: ObjectStream | undefined;
  try {
    const opened = (object = await openObject(s3, bucket, key, options.signal));
    const report = (receivedBytes: number) =>
      options.onProgress?.({ receivedBytes, totalBytes: opened.size });
    report(0);
    const size = await writeStreamAtomic(destination, counted(key, opened, report), {
      mode: 0o644,
      signal: options.signal,
    });
    return { size };
  } catch (error) {
    if (options.signal?.aborted) {
      throw new CourierError('canceled', `The download of ${key} was canceled; nothing was saved.`);
    }
    throw error;
  } finally {
    object?.body.destroy();
  }
}

/** The file name a download of `key` is offered under: its last segment, safe on every OS. */
export function downloadFileName(key: string): string {
  const name = posix
    .basename(key)
    // Windows refuses these in names; control characters are refused everywhere.
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, '_')
    .replace(/^\.+/, '')
    .trim();
  return name || 'download';
}
