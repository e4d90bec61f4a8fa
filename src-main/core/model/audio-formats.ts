/** Which files a scan reads, which it reports as unsupported audio, and which it ignores. */

/** Extensions Courier reads tags from (lower case, no dot). */
export const audioExtensions: ReadonlySet<string> = new Set([
  'mp3',
  'flac',
  'ogg',
  'oga',
  'opus',
  'm4a',
  'mp4',
  'aac',
  'wav',
  'wave',
  'bwf',
  'aif',
  'aiff',
  'aifc',
]);

/** Audio that a scan recognises but does not deliver. */
export const unsupportedAudioExtensions: ReadonlySet<string> = new Set([
  'wma',
  'ape',
  'wv',
  'mpc',
  'dsf',
  'dff',
  'mka',
  'webm',
  'amr',
  'ac3',
  'mp2',
  'au',
  'caf',
  'mid',
  'midi',
]);

/** How a scan treats a file. */
export type FileKind = 'audio' | 'unsupported-audio' | 'ignored';

/** The lower-case extension of a file name, without the dot ('' when none). */
export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** Classifies a file by its name; macOS "._" resource forks are ignored. */
export function fileKind(name: string): FileKind {
  const base = name.slice(name.lastIndexOf('/') + 1);
  if (base.startsWith('._')) return 'ignored';
  const ext = extensionOf(base);
  if (audioExtensions.has(ext)) return 'audio';
  if (unsupportedAudioExtensions.has(ext)) return 'unsupported-audio';
  return 'ignored';
}

/** A file's base name without its extension (what audio_only uses as outer_id). */
export function fileStem(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? base : base.slice(0, dot);
}
