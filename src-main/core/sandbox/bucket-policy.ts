/**
 * Section 2.6's access table, the only places a client may write. Everything else is readable
 * (the table says read-only or states nothing) and never writable.
 */
export const WRITABLE_PREFIXES = [
  'delivery/audio/',
  'delivery/ddex/',
  'delivery/mapping/',
  'delivery/metadata/',
];

/** True when a client may create, overwrite or delete the object at this key. */
export function isWritableKey(key: string): boolean {
  return WRITABLE_PREFIXES.some((prefix) => key.startsWith(prefix) && key.length > prefix.length);
}

/** True when a key could escape s3rver's folder or alias another key on disk. */
export function isUnsafeKey(key: string): boolean {
  return (
    key.split('/').some((segment) => segment === '.' || segment === '..') || key.includes('\0')
  );
}

/** S3's limit on a key's length, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;
/**
 * s3rver keeps each object as files named after the key's segments, plus a suffix of up to 22
 * bytes (`._S3rver_metadata.json`), and file names stop at 255 bytes: longer segments would fail
 * deep inside it as a 500 that any client would retry in vain.
 */
const MAX_SEGMENT_BYTES = 255 - 22;

/** Why the sandbox can't store `key` (S3's 1,024-byte limit, or its own per-segment one). */
export function keyTooLong(key: string): string | undefined {
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    return `Your key is too long: S3 keys are at most ${MAX_KEY_BYTES} bytes.`;
  }
  if (key.split('/').some((segment) => Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES)) {
    return `Your key is too long for the sandbox: each '/'-separated part of a key is at most ${MAX_SEGMENT_BYTES} bytes here (S3 itself only limits the whole key to ${MAX_KEY_BYTES}).`;
  }
  return undefined;
}
