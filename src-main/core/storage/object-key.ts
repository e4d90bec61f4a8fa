import { CourierError } from '../errors.js';

/** The only prefix Courier ever writes to in a delivery bucket. */
export const AUDIO_ROOT = 'delivery/audio/';

// C0, DEL and C1 controls never belong in a key: they break listings and the service's scanner.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Validates and normalises one path segment list (NFC, no empty, `.`, `..` or control chars). */
function cleanSegments(path: string, what: string): string[] {
  const segments = path.normalize('NFC').replaceAll('\\', '/').split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new CourierError(
        'invalid-key',
        `The ${what} "${path}" has an empty, "." or ".." segment; rename it and try again.`,
      );
    }
    if (CONTROL.test(segment)) {
      throw new CourierError(
        'invalid-key',
        `The ${what} "${path}" contains a control character; rename it and try again.`,
      );
    }
  }
  return segments;
}

/**
 * Builds the bucket key `delivery/audio/<folder>/<relativePath>` with NFC Unicode and forward
 * slashes, refusing anything that could land outside the delivery folder.
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
