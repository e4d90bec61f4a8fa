import { escapeControls } from '../storage/object-key.js';
import { S3GateError } from './s3-errors.js';

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

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Names Windows keeps for devices, whatever the extension or case (`con`, `NUL.wav`, `COM1.txt`). */
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$) *(\..*)?$/i;

/**
 * Why a key could escape s3rver's folder or alias another key on disk, or undefined when it can't.
 * s3rver keeps each object as files named after the key's `/`-separated parts, so the rules are
 * those of file names on every system the sandbox runs on, applied everywhere so that a key the
 * sandbox takes on Linux is one it takes on Windows too. Not refused: `: * ? " < > |`, which
 * s3rver itself escapes on Windows, and which real file names (a macOS "AC/DC" is "AC:DC" on disk)
 * carry.
 */
export function unsafeKeyReason(key: string): string | undefined {
  const segments = key.split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return "it has a '.' or '..' part, which would name another folder";
  }
  if (CONTROL.test(key)) return 'it contains a control character';
  if (key.includes('\\')) return 'it contains a backslash, a folder separator on Windows';
  // A trailing '/' is a folder marker; an empty part elsewhere vanishes from the path on disk.
  if (segments.slice(0, -1).some((segment) => segment === '')) {
    return "it has an empty part ('//' or a leading '/'), which would store it as another key";
  }
  for (const [index, segment] of segments.entries()) {
    // The last part is safe: s3rver adds its own suffix to that file name.
    if (index < segments.length - 1 && /[. ]$/.test(segment)) {
      return `its folder '${segment}' ends with a dot or a space, which Windows drops from folder names`;
    }
    if (DEVICE_NAME.test(segment)) {
      return `its part '${segment}' is a Windows device name`;
    }
    if (segment.includes('._S3rver_')) {
      return `its part '${segment}' contains '._S3rver_', which s3rver uses for its own files`;
    }
  }
  return undefined;
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

/** What a request does with an object: a read never changes it. */
export type KeyAccess = 'read' | 'write';

/**
 * The one check every key entering the bucket goes through (a request's path, a copy source, each
 * key of a DeleteObjects): the S3 error that refuses it, or undefined when the access is allowed.
 */
export function keyRefusal(key: string, access: KeyAccess): S3GateError | undefined {
  const shown = escapeControls(key);
  const unsafe = unsafeKeyReason(key);
  if (unsafe) {
    return new S3GateError(
      'InvalidArgument',
      `The sandbox bucket refuses the key '${shown}': ${unsafe}.`,
    );
  }
  const tooLong = keyTooLong(key);
  if (tooLong) {
    // Such an object can't exist: reads find nothing, writes are refused as S3 does.
    return access === 'read'
      ? new S3GateError('NoSuchKey', 'The specified key does not exist.')
      : new S3GateError('KeyTooLongError', tooLong);
  }
  if (access === 'write' && !isWritableKey(key)) {
    return new S3GateError(
      'AccessDenied',
      `Access Denied: '${shown}' is read-only; write under delivery/audio/, delivery/ddex/, delivery/mapping/ or delivery/metadata/.`,
    );
  }
  return undefined;
}

/**
 * s3rver names a multipart upload's folder after its id and each part's file after its number,
 * unchecked: anything but the ids it hands out (32 hex digits) and S3's part numbers could name a
 * path outside the bucket.
 */
export function uploadRefusal(query: [string, string][]): S3GateError | undefined {
  const values = (name: string) => query.filter(([k]) => k === name).map(([, v]) => v);
  if (values('uploadId').some((id) => !/^[0-9a-f]{32}$/.test(id))) {
    return new S3GateError(
      'NoSuchUpload',
      'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    );
  }
  if (values('partNumber').some((n) => !/^([1-9][0-9]{0,3}|10000)$/.test(n))) {
    return new S3GateError(
      'InvalidArgument',
      'Part number must be an integer between 1 and 10000, inclusive.',
    );
  }
  return undefined;
}
