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
  // Other names of the same formats, which music-metadata reads (by the name or the content):
  // FLAC, MPEG audio, an iPhone ringtone (MP4), Ogg.
  'fla',
  'mpa',
  'm2a',
  'mpga',
  'm4r',
  'ogx',
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
  'awb',
  'ac3',
  'eac3',
  'ec3',
  'dts',
  'thd',
  'mlp',
  'au',
  'snd',
  'caf',
  'w64',
  'ofr',
  'shn',
  'voc',
  'gsm',
  '3ga',
  'aa',
  'aax',
  'mid',
  'midi',
]);

/**
 * Extensions of the other files a masters folder holds (artwork, booklets, sheets, cue sheets
 * and rip logs, checksums, archives, video, DAW sessions): settled by name, never opened. A file
 * named otherwise (`Track 01.mp3.part`, `take.bak`, no extension at all) is opened, as it may
 * hold audio: `opensForContent`.
 */
const otherExtensions: ReadonlySet<string> = new Set(
  [
    'jpg jpeg png gif bmp tif tiff webp heic heif psd ai eps svg ico',
    'pdf txt md rtf doc docx odt pages xls xlsx ods numbers csv tsv ppt pptx key',
    'json xml yml yaml html htm nfo log cue m3u m3u8 pls xspf sfv md5 sha1 sha256 ffp',
    'accurip toc lrc srt ini cfg plist db sqlite url lnk ds_store',
    'zip rar 7z tar gz tgz bz2 xz dmg iso pkg msi exe dll app bat sh command',
    'mov avi mpg mpeg m4v wmv flv vob ts m2ts mts 3gp ogv ogm',
    'als alp logicx ptx ptf cpr npr flp rpp sesx aup aup3 band song ttf otf woff woff2',
  ].flatMap((line) => line.split(' ')),
);

/** What a scan, a plan and the library say about a file of an audio format not delivered. */
export const unsupportedAudioMessage =
  'an audio format Courier cannot read, so cannot check or deliver; convert it to FLAC, WAV, AIFF, MP3, M4A, Ogg or Opus';

/** How a scan, a plan and an upload treat a file (the one rule for all three). */
export type FileKind = 'audio' | 'unsupported-audio' | 'hidden' | 'ignored';

/**
 * Whether a file is opened to learn what it holds: one not named as audio, nor as a kind of file
 * a masters folder holds besides (`otherExtensions`), nor hidden. Audio found in it is read and
 * shown, and not delivered until it is named for what it is (`audioByContentMessage`).
 */
export function opensForContent(name: string): boolean {
  return fileKind(name) === 'ignored' && !otherExtensions.has(extensionOf(name));
}

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

/** How many of a file's first bytes `sniffAudioExtension` looks at. */
export const audioMagicLength = 16;

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

/** What a scan says of audio found in `file` by its content (`opensForContent`). */
export function audioByContentMessage(file: string, extension: string): string {
  const named = extensionOf(file);
  if (named === '') return noExtensionMessage(extension);
  return `named .${named}, but holds .${extension} audio (read from its content); it is not delivered until its name ends in .${extension}`;
}
