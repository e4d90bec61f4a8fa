import { badRequest } from './http-kit.js';

/** Root of delivered audio in the bucket; API paths are relative to it. */
export const AUDIO_ROOT = 'delivery/audio/';
/** Where mapping files are delivered. */
export const MAPPING_ROOT = 'delivery/mapping/';
/** Where ingested audio ends up. */
export const PROCESSED_AUDIO_ROOT = 'processed/audio/';

/**
 * Splits a caller's relative path into safe segments. Traversal ('.', '..'), backslashes and
 * control characters are a 400 naming the parameter: the sandbox never resolves them.
 */
export function safeSegments(raw: string, parameter: string): string[] {
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) {
    throw badRequest(
      'invalid_path',
      `'${parameter}' contains a backslash or a control character.`,
      {
        parameter,
      },
    );
  }
  const segments = raw.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) {
    throw badRequest('path_traversal', `'${parameter}' must not contain '.' or '..' segments.`, {
      parameter,
    });
  }
  return segments;
}

/** The bucket prefix (ending in '/') of a delivery_dir_path. */
export function deliveryDirPrefix(raw: string): string {
  const segments = safeSegments(raw, 'delivery_dir_path');
  return segments.length === 0 ? AUDIO_ROOT : `${AUDIO_ROOT}${segments.join('/')}/`;
}

/** The bucket key of a file path relative to a root, for the parameter or field named. */
export function fileKey(root: string, raw: string, parameter: string): string {
  const segments = safeSegments(raw, parameter);
  if (segments.length === 0 || raw.endsWith('/')) {
    throw badRequest('invalid_path', `'${parameter}' must name a file, not '${raw}'.`, {
      parameter,
    });
  }
  return `${root}${segments.join('/')}`;
}

/** The last segment of a key or URL path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Where the audio of an entry is kept once ingested: one folder per catalog and outer_id. */
export function processedAudioKey(catalogId: string, outerId: string, fileName: string): string {
  // Encoded, and dots too, so an outer_id can never become a '.' or '..' path segment.
  const folder = encodeURIComponent(outerId).replace(/\./g, '%2E');
  const name = fileName.replace(/[^\w.\- ()[\]+,'&]/g, '_').replace(/^\.+/, '_') || 'audio';
  return `${PROCESSED_AUDIO_ROOT}${catalogId}/${folder}/${name}`;
}
