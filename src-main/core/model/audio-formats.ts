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
  // Read by music-metadata and decoded by ffmpeg: MPEG layers I and II, Speex, Matroska and
  // WebM audio, audiobooks.
  'mp1',
  'mp2',
  'spx',
  'mka',
  'mkv',
  'webm',
  'weba',
  'm4b',
  // Read by music-metadata (tags and format shown); whether they may be delivered is the
  // profile's formats rule (`delivery-rules.ts`), which by default leaves them out.
  'wma',
  'asf',
  'ape',
  'wv',
  'mpc',
  'dsf',
  'dff',
]);

/** Audio that a scan recognises but cannot read, so does not deliver. */
export const unsupportedAudioExtensions: ReadonlySet<string> = new Set([
  'tak',
  'tta',
  'amr',
  'ac3',
  'au',
  'caf',
  'mid',
  'midi',
]);

/** What a scan, a plan and the library say about a file of an audio format not delivered. */
export const unsupportedAudioMessage =
  'an audio format Courier cannot read, so cannot check or deliver; convert it to FLAC, WAV, AIFF, MP3, M4A, Ogg or Opus';

/** How a scan, a plan and an upload treat a file (the one rule for all three). */
export type FileKind = 'audio' | 'unsupported-audio' | 'hidden' | 'ignored';

/** The lower-case extension of a file name, without the dot ('' when none). */
export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/**
 * Whether a relative path is hidden: any of its segments starts with '.' (`.DS_Store`, macOS
 * `._` resource forks, `...mp3`, anything under `.git/`). Hidden files are never delivered.
 */
export function isHiddenPath(path: string): boolean {
  return path.split('/').some((segment) => segment.startsWith('.'));
}

/** Classifies a file by its relative path (forward slashes). */
export function fileKind(name: string): FileKind {
  if (isHiddenPath(name)) return 'hidden';
  const base = name.slice(name.lastIndexOf('/') + 1);
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

/**
 * The extension of the audio a file without one holds, from its first bytes (its magic), or
 * null when they are not audio. Such a file is read and shown, but not delivered until it is
 * named: every tool downstream goes by the extension.
 */
export function sniffAudioExtension(head: Uint8Array): string | null {
  const text = (at: number, length: number) =>
    String.fromCharCode(...head.subarray(at, at + length));
  if (head.length < 4) return null;
  if (text(0, 3) === 'ID3') return 'mp3';
  if (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x06) !== 0) return 'mp3';
  if (head[0] === 0xff && (head[1]! & 0xf6) === 0xf0) return 'aac';
  const magic = text(0, 4);
  if (magic === 'fLaC') return 'flac';
  if (magic === 'OggS') return 'ogg';
  if ((magic === 'RIFF' || magic === 'RF64') && text(8, 4) === 'WAVE') return 'wav';
  if (magic === 'FORM' && (text(8, 4) === 'AIFF' || text(8, 4) === 'AIFC')) return 'aiff';
  if (text(4, 4) === 'ftyp') return 'm4a';
  if (magic === 'MAC ') return 'ape';
  if (magic === 'wvpk') return 'wv';
  if (magic === 'MPCK' || text(0, 3) === 'MP+') return 'mpc';
  if (magic === 'DSD ') return 'dsf';
  if (magic === 'FRM8') return 'dff';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'mka';
  if (magic === '\x30\x26\xb2\x75') return 'wma';
  return null;
}

/** What a scan says of audio found in a file without an extension. */
export function noExtensionMessage(extension: string): string {
  return `no file extension: read as .${extension} from its content; it is not delivered until its name ends in .${extension}`;
}
