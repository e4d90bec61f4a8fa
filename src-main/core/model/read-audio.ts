/**
 * Reads one audio file, the same for the CLI's scan (a file handle) and the renderer's tags
 * workers (a Blob): skipped by name or size, else parsed by music-metadata (covers and duration
 * skipped) over the block-caching tokenizer, then its QC: the master's properties and whether
 * its structure says it is whole (`integrity.ts`, a few KiB read at its start and end). A bad
 * file becomes findings, never a throw. Free of Node APIs: the renderer bundles it.
 */
import { type IAudioMetadata, parseFromTokenizer } from 'music-metadata';

import { readPlainAiff } from './aiff-read.js';
import { aiffTextChunks } from './aiff-text.js';
import {
  audioByContentMessage,
  audioMagicLength,
  extensionOf,
  opensForContent,
  sniffAudioExtension,
} from './audio-formats.js';
import { audioPropertiesOf } from './audio-properties.js';
import { type BlockCacheOptions, BlockTokenizer, type ByteSource } from './block-tokenizer.js';
import { readPlainFlac } from './flac-read.js';
import { id3v23TextFrames } from './id3v23-text.js';
import { checkIntegrity } from './integrity.js';
import { cutAfterAudioFinding, damagedFinding, integrityFinding } from './masters.js';
import { readPlainMp3 } from './mp3-read.js';
import { readPlainMp4 } from './mp4-read.js';
import { oggFlacComments } from './ogg-flac.js';
import { readPlainOgg } from './ogg-read.js';
import { type FileReadResult, parsedResult, precheckFile, readFailure } from './read-result.js';
import { draftFromMetadata, slashSplitFrames } from './tags-to-track.js';
import type { Finding } from './track.js';
import { readPlainWav } from './wav-read.js';

/** Reads `source`, the file whose delivery-relative path is `file` (forward slashes, NFC). */
export async function readAudio(
  source: ByteSource,
  file: string,
  options: { cache: BlockCacheOptions; mimeType?: string },
): Promise<FileReadResult> {
  // A file not named as audio (no extension, `.part`, `.bak`) is read when its first bytes are.
  const sniffed = await sniffedExtension(source, file);
  const skipped = sniffed ? null : precheckFile(file, source.size);
  if (skipped) {
    await source.close?.();
    return skipped;
  }
  // The parser goes by the extension: such a file is parsed as what its content is.
  const info = {
    path: sniffed ? `${file}.${sniffed}` : file,
    ...(options.mimeType ? { mimeType: options.mimeType } : {}),
  };
  const tokenizer = new BlockTokenizer(rf64AsRiff(source), info, options.cache);
  const at: ByteSource = {
    size: source.size,
    read: (t, p) => tokenizer.readAt(t, p),
    bytesAt: (p, n) => tokenizer.bytesAt(p, n),
  };
  try {
    let meta: IAudioMetadata | undefined;
    let result: ReturnType<typeof parsedResult> | undefined;
    let failure: unknown;
    try {
      const plain = plainReaderFor(info);
      meta =
        (plain ? await plain(at) : null) ??
        (await parseFromTokenizer(tokenizer, { skipCovers: true, duration: false }));
      const parsed = meta;
      result = parsedResult(file, parsed, (notes) => draftFromMetadata(parsed, file, notes));
    } catch (error) {
      failure = error;
    }
    if (!result?.draft) {
      // A master cut short can end inside a box or chunk whose size the parser checks against
      // the file's (an MP4's mdat): parsed again as if the rest were there, its tags and format
      // are read, and the integrity check below says what is missing.
      const lenient = await parseLeniently(source, info, options.cache);
      const retried = lenient
        ? parsedResult(file, lenient, (notes) => draftFromMetadata(lenient, file, notes))
        : undefined;
      if (!retried?.draft) {
        // No audio could be read: a master cut inside its header or tags says so.
        const cutShort = await cutBeforeAudio(source, info.path);
        if (cutShort) return { file, draft: null, findings: [cutShort] };
        return result ?? readFailure(file, failure);
      }
      meta = lenient!;
      result = retried;
    }
    // Tags music-metadata leaves unread or misreads, read here: the Vorbis comment of FLAC in
    // Ogg, and AIFF's text chunks (decoded as the 7-bit ASCII the format names).
    const { container, codec } = meta!.format;
    const own =
      container === 'Ogg' && codec === 'FLAC' && !meta!.native.vorbis
        ? { type: 'vorbis', tags: await oggFlacComments(at) }
        : container?.startsWith('AIFF') && meta!.native.AIFF
          ? { type: 'AIFF', tags: await aiffTextChunks(at) }
          : null;
    if (own && own.tags.length > 0) {
      const withTags = { ...meta!, native: { ...meta!.native, [own.type]: own.tags } };
      meta = withTags;
      result = parsedResult(file, withTags, (notes) => draftFromMetadata(withTags, file, notes));
    }
    // ID3v2.3 credits split at "/" by music-metadata: read whole when a split happened.
    const v23 = meta!.native['ID3v2.3'];
    if (v23?.some((t, i) => slashSplitFrames.has(t.id) && v23[i + 1]?.id === t.id)) {
      const whole = await id3v23TextFrames(at, slashSplitFrames);
      if (whole.size > 0) {
        const rest = v23.filter((t) => !whole.has(t.id));
        const tags = [
          ...rest,
          ...[...whole].flatMap(([id, values]) => values.map((value) => ({ id, value }))),
        ];
        const withTags = { ...meta!, native: { ...meta!.native, 'ID3v2.3': tags } };
        meta = withTags;
        result = parsedResult(file, withTags, (notes) => draftFromMetadata(withTags, file, notes));
      }
    }
    const { format } = meta!;
    const granuleRate = format.codec?.toLowerCase().startsWith('opus') ? 48_000 : format.sampleRate;
    const integrity = await checkIntegrity(
      at,
      format.container ?? '',
      granuleRate,
      format.duration,
    );
    const audio = audioPropertiesOf(format, { ...integrity, size: source.size });
    const finding =
      integrityFinding(integrity) ??
      cutAfterAudioFinding(integrity) ??
      (integrity.state === 'unchecked' && result.damaged ? damagedFinding() : null);
    const findings = [
      ...(sniffed
        ? [{ level: 'warning' as const, message: audioByContentMessage(file, sniffed) }]
        : []),
      ...result.findings,
      ...(finding ? [finding] : []),
      ...(audio.md5 === false ? [{ level: 'warning' as const, message: noMd5Message }] : []),
    ];
    return { file: result.file, draft: result.draft, findings, audio };
  } catch (error) {
    return readFailure(file, error);
  } finally {
    await tokenizer.close();
  }
}

/**
 * The lean readers (`plain-read.ts`) by the extension music-metadata picks its parser by, and
 * the MIME types a browser gives those files, none of which names another parser to it.
 */
const mp4MimeTypes = ['audio/mp4', 'audio/m4a', 'audio/x-m4a', 'video/mp4'];
const oggMimeTypes = ['audio/ogg', 'audio/opus', 'application/ogg', 'video/ogg'];
const aiffMimeTypes = ['audio/aiff', 'audio/aif', 'application/aiff', 'audio/x-aiff'];
const plainReaders: Record<string, { read: typeof readPlainMp4; mimeTypes: string[] }> = {
  m4a: { read: readPlainMp4, mimeTypes: mp4MimeTypes },
  m4b: { read: readPlainMp4, mimeTypes: mp4MimeTypes },
  mp4: { read: readPlainMp4, mimeTypes: mp4MimeTypes },
  flac: { read: readPlainFlac, mimeTypes: ['audio/flac', 'audio/x-flac'] },
  ogg: { read: readPlainOgg, mimeTypes: oggMimeTypes },
  oga: { read: readPlainOgg, mimeTypes: oggMimeTypes },
  opus: { read: readPlainOgg, mimeTypes: oggMimeTypes },
  wav: {
    read: readPlainWav,
    mimeTypes: ['audio/vnd.wave', 'audio/wav', 'audio/wave', 'audio/x-wav'],
  },
  aif: { read: readPlainAiff, mimeTypes: aiffMimeTypes },
  aiff: { read: readPlainAiff, mimeTypes: aiffMimeTypes },
  mp3: { read: readPlainMp3, mimeTypes: ['audio/mpeg', 'audio/mp3'] },
};

/**
 * The lean reader that may read the file in place of music-metadata, which would read it with
 * the parser its extension names (unless its MIME type names another); none for other files.
 */
function plainReaderFor(info: { path: string; mimeType?: string }): typeof readPlainMp4 | null {
  const reader = plainReaders[extensionOf(info.path)];
  if (!reader) return null;
  const mime = info.mimeType?.toLowerCase();
  return !mime || reader.mimeTypes.includes(mime) ? reader.read : null;
}

/** The containers `checkIntegrity` names, by the extension a file's first bytes give. */
const containerOfExtension: Record<string, string> = {
  mp3: 'MPEG',
  flac: 'FLAC',
  wav: 'WAVE',
  aiff: 'AIFF',
  m4a: 'M4A',
  ogg: 'Ogg',
  mka: 'EBML/matroska',
  mkv: 'EBML/matroska',
  webm: 'EBML/webm',
};

/** The cut-short finding of a file that holds no readable audio because it was cut. */
async function cutBeforeAudio(source: ByteSource, path: string): Promise<Finding | null> {
  const head = new Uint8Array(audioMagicLength);
  const n = await source.read(head, 0);
  const sniffed = sniffAudioExtension(head.subarray(0, n)) ?? extensionOf(path);
  const container = containerOfExtension[sniffed];
  if (!container) return null;
  return integrityFinding(await checkIntegrity(source, container));
}

/** The audio extension of a file not named as audio, from its first bytes; null otherwise. */
async function sniffedExtension(source: ByteSource, file: string): Promise<string | null> {
  if (!opensForContent(file) || source.size < audioMagicLength) return null;
  const head = new Uint8Array(audioMagicLength);
  const n = await source.read(head, 0);
  return sniffAudioExtension(head.subarray(0, n));
}

/** A FLAC whose encoder left STREAMINFO's MD5 empty: nothing can verify its decoded audio. */
const noMd5Message =
  'the FLAC holds no MD5 of its audio (its encoder left it empty), so no decoder can verify it';

/** Much more than any file holds: the size a lenient parse is told. */
const lenientSize = 2 ** 40;

/** music-metadata's reading of `source` told it is larger than it is; null when that fails too. */
async function parseLeniently(
  source: ByteSource,
  info: { path: string; mimeType?: string },
  cache: BlockCacheOptions,
): Promise<IAudioMetadata | null> {
  // The source is not closed here: the strict tokenizer owns it.
  const padded: ByteSource = {
    size: source.size + lenientSize,
    read: (target, position) =>
      position >= source.size ? Promise.resolve(0) : source.read(target, position),
  };
  try {
    const meta = await parseFromTokenizer(new BlockTokenizer(rf64AsRiff(padded), info, cache), {
      skipCovers: true,
      duration: false,
    });
    return meta.format.container && meta.format.codec ? meta : null;
  } catch {
    return null;
  }
}

/**
 * RF64 (a WAV over 4 GiB, broadcast's format) is RIFF with its sizes in a ds64 chunk, and
 * music-metadata reads RIFF only: it is shown the file starting "RIFF", so its format and tags
 * are read; its data size 0xFFFFFFFF then reads as a streamed WAV's, and `integrity.ts` checks
 * the ds64 size.
 */
function rf64AsRiff(source: ByteSource): ByteSource {
  return {
    size: source.size,
    async read(target, position) {
      const n = await source.read(target, position);
      if (position === 0 && n >= 12 && target[0] === 0x52 && target[1] === 0x46) {
        const head = String.fromCharCode(...target.subarray(0, 4), ...target.subarray(8, 12));
        if (head === 'RF64WAVE') target.set([0x52, 0x49, 0x46, 0x46], 0);
      }
      return n;
    },
    ...(source.close ? { close: () => source.close!() } : {}),
  };
}
