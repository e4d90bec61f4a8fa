import { CourierError } from '../errors.js';
import { showControls } from '../model/user-text.js';

/** The only prefix Courier ever writes to in a delivery bucket. */
export const AUDIO_ROOT = 'delivery/audio/';

// C0, DEL and C1 controls never belong in a key: they break listings and the service's scanner.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The longest file or folder name in a key, in UTF-8 bytes. S3 itself only caps the whole key
 * (1,024 bytes), but names travel on: the service moves delivered files into its own storage, and
 * file-system-backed S3 servers (the sandbox's among them) store each segment as a file name,
 * which most file systems cap at 255 bytes including the server's own suffixes.
 */
export const MAX_NAME_BYTES = 200;

/**
 * Validates and normalises one `/`-separated path (NFC; no empty, `.` or `..` segment, control
 * character or backslash). Listings already turn a Windows path's separators into `/`
 * (`relativeName`), so a backslash left here is part of a name (legal on macOS and Linux): it is
 * refused rather than split, since Windows tools, and the service's storage, read it as a folder.
 */
function cleanSegments(path: string, what: string): string[] {
  if (path.includes('\\')) {
    throw new CourierError(
      'invalid-key',
      `The ${what} "${escapeControls(path)}" contains a backslash, which Windows and S3 tools read as a folder separator; rename it${what === 'folder' ? " (separate folders with '/')" : ''} and try again.`,
    );
  }
  const segments = path.normalize('NFC').split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new CourierError(
        'invalid-key',
        `The ${what} "${escapeControls(path)}" has an empty, "." or ".." segment; rename it and try again.`,
      );
    }
    if (CONTROL.test(segment)) {
      throw new CourierError(
        'invalid-key',
        `The ${what} "${escapeControls(path)}" contains a control character; rename it and try again.`,
      );
    }
    if (Buffer.byteLength(segment, 'utf8') > MAX_NAME_BYTES) {
      throw new CourierError(
        'invalid-key',
        `The name "${segment.slice(0, 40)}…" is longer than ${MAX_NAME_BYTES} bytes; shorten it and try again.`,
      );
    }
  }
  return segments;
}

/** A text with control characters shown as escapes (`\u0007`), safe to print on one line. */
export const escapeControls = showControls;

/**
 * Builds the bucket key `delivery/audio/<folder>/<relativePath>` (a `/`-separated relative path)
 * in NFC Unicode, refusing anything that could land outside the delivery folder or be read as
 * another path (a backslash).
 */
export function deliveryKey(folder: string, relativePath: string): string {
  const key =
    AUDIO_ROOT +
    [...cleanSegments(folder, 'folder'), ...cleanSegments(relativePath, 'path')].join('/');
  if (Buffer.byteLength(key, 'utf8') > 1024) {
    throw new CourierError(
      'invalid-key',
      `The key for "${relativePath}" is longer than S3's 1,024 bytes; shorten the path.`,
    );
  }
  return key;
}

/** The folder prefix (`delivery/audio/<folder>/`) every key of one delivery starts with. */
export function deliveryPrefix(folder: string): string {
  return AUDIO_ROOT + cleanSegments(folder, 'folder').join('/') + '/';
}

/** Throws unless `key` is a clean key under `delivery/audio/`: the last guard before any write. */
export function assertDeliveryKey(key: string): void {
  if (!key.startsWith(AUDIO_ROOT) || key.normalize('NFC') !== key) {
    throw new CourierError(
      'invalid-key',
      `Refusing to write "${key}": Courier only writes NFC keys under ${AUDIO_ROOT}.`,
    );
  }
  cleanSegments(key.slice(AUDIO_ROOT.length), 'key');
}
