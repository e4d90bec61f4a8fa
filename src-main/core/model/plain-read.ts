/**
 * What the lean readers of common formats share (`mp4-read.ts`, `flac-read.ts`, `ogg-read.ts`,
 * `wav-read.ts`, `aiff-read.ts`): they give exactly what music-metadata gives for the files they
 * take, built by its own collector (so native tags map to common ones as they always did), and
 * leave every other file to it. A reader that meets anything it does not follow as plainly as
 * music-metadata would throws `NotPlain`, and `readPlainly` turns that (or any failure) into
 * null. Free of Node APIs: the renderer bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';
import { fromBuffer } from 'strtok3/core';

// The package exports none of these: the collector maps native tags to common ones, the bit
// reader is how its parsers read packed fields (a FLAC's sample count), and the ID3v2 parser
// reads the tag WAV and AIFF files carry in a chunk; all must be its own.
import { MetadataCollector } from '../../../node_modules/music-metadata/lib/common/MetadataCollector.js';
import {
  getBitAllignedNumber,
  stripNulls,
} from '../../../node_modules/music-metadata/lib/common/Util.js';
import { ID3v2Parser } from '../../../node_modules/music-metadata/lib/id3v2/ID3v2Parser.js';
import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32le } from './bytes.js';

export { getBitAllignedNumber as bitsAt, stripNulls };

/** Why a file is left to music-metadata (thrown inside a reader, caught by `readPlainly`). */
class NotPlain extends Error {
  constructor() {
    super('left to music-metadata');
  }
}

/** Leaves the file being read to music-metadata. */
export const notPlain = (): never => {
  throw new NotPlain();
};

/** The options the scan gives music-metadata (covers skipped, no duration scan). */
const scanOptions = { skipCovers: true, duration: false };

/**
 * An ID3v2 tag held in `bytes` (WAV's `id3 ` chunk, AIFF's `ID3 `, the tag an MP3 starts with),
 * read by music-metadata's own ID3v2 parser over those bytes, as its parsers read it.
 */
export function readId3Chunk(bytes: Uint8Array, metadata: Collector): Promise<void> {
  return new ID3v2Parser().parse(metadata, fromBuffer(bytes), scanOptions);
}

/** A collector for one file, as music-metadata's parsers fill it. */
export type Collector = MetadataCollector;

/** Sets a format field (music-metadata's `setFormat`, typed loosely as its parsers call it). */
export function setFormat(metadata: Collector, key: string, value: unknown): void {
  metadata.setFormat(key as Parameters<Collector['setFormat']>[0], value as never);
}

/**
 * What `read` gives for `source` as music-metadata would, or null when it meets something it
 * leaves to music-metadata. The result is finished as music-metadata finishes every parse.
 */
export async function readPlainly(
  source: ByteSource,
  read: (source: ByteSource, metadata: Collector) => Promise<void>,
): Promise<IAudioMetadata | null> {
  const metadata = new MetadataCollector(scanOptions);
  try {
    await read(source, metadata);
  } catch {
    // Not plain, or music-metadata's own ID3v2 parser failed on a chunk: music-metadata reads
    // the file, and a file it cannot read fails there with its words, as it always did.
    return null;
  }
  // ParserFactory's last step: what the parser did not say is inferred from its tracks.
  const { format } = metadata;
  if (format.hasAudio === undefined) {
    setFormat(
      metadata,
      'hasAudio',
      format.trackInfo.some((t) => t.type === audioTrackType),
    );
  }
  if (format.hasVideo === undefined) {
    setFormat(
      metadata,
      'hasVideo',
      format.trackInfo.some((t) => t.type === videoTrackType),
    );
  }
  return metadata.toCommonMetadata() as IAudioMetadata;
}

/** music-metadata's `TrackType` numbers (Matroska's, which it uses for every format). */
export const audioTrackType = 2;
const videoTrackType = 1;

/**
 * Leaves the file to music-metadata when tags follow its audio (ID3v1, APEv2), which its
 * parsers read from the end of the file: the lean readers do not.
 */
export async function noTagsAtTheEnd(source: ByteSource): Promise<void> {
  const tail = await readAt(source, Math.max(0, source.size - 160), 160);
  const at = (text: string, fromEnd: number) =>
    tail.length >= fromEnd && ascii(tail, tail.length - fromEnd, text.length) === text;
  if (at('TAG', 128) || at('APETAGEX', 32) || at('APETAGEX', 160)) notPlain();
}

const utf8 = new TextDecoder('utf-8');

/**
 * A Vorbis comment from `at` in `b` (a FLAC block, an Ogg Vorbis or Opus packet after its
 * marker): the vendor, then each comment split at its first "=" with the key upper-cased, as
 * music-metadata's `VorbisDecoder` reads them. A length past the end is not plain.
 */
export function vorbisComment(
  b: Uint8Array,
  at: number,
): { vendor: string; comments: { key: string; value: string }[] } {
  let p = at;
  const text = () => {
    if (p + 4 > b.length) notPlain();
    const length = u32le(b, p);
    p += 4;
    if (p + length > b.length) notPlain();
    const value = utf8.decode(b.subarray(p, p + length));
    p += length;
    return value;
  };
  const vendor = text();
  if (p + 4 > b.length) notPlain();
  let count = u32le(b, p);
  p += 4;
  const comments: { key: string; value: string }[] = [];
  while (count-- > 0) {
    const comment = text();
    const equals = comment.indexOf('=');
    comments.push({
      key: comment.substring(0, equals).toUpperCase(),
      value: comment.substring(equals + 1),
    });
  }
  return { vendor, comments };
}
