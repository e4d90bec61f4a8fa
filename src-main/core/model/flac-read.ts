/**
 * A lean reader of FLAC files as encoders and taggers write them (the fLaC marker first, then
 * metadata blocks), giving exactly what music-metadata's FLAC parser gives for them: the
 * STREAMINFO block's properties, the Vorbis comment as tags, the same bitrate. It reads the
 * blocks from the block cache in one pass, with no promise per field. A file with an ID3v2 tag
 * before the marker, tags after the audio, a block cut short, an unknown block type or a comment
 * that does not add up is left to music-metadata (`plain-read.ts`). Free of Node APIs: the
 * renderer bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';

import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt } from './bytes.js';
import {
  bitsAt,
  type Collector,
  noTagsAtTheEnd,
  notPlain,
  readPlainly,
  setFormat,
  vorbisComment,
} from './plain-read.js';

/** FLAC metadata block types music-metadata knows; 6 is a picture, skipped as covers are. */
const streamInfoBlock = 0;
const commentBlock = 4;
const lastKnownType = 6;

/** Bytes of a metadata block read at once while walking them (headers, small blocks). */
const peek = 4 + 34;

/**
 * What music-metadata would give for the FLAC file `source` (covers skipped, as the scan asks),
 * or null when the file is not plain enough to be read here.
 */
export function readPlainFlac(source: ByteSource): Promise<IAudioMetadata | null> {
  return readPlainly(source, async (file, metadata) => {
    await noTagsAtTheEnd(file);
    if (ascii(await readAt(file, 0, 4), 0, 4) !== 'fLaC') notPlain();
    let at = 4;
    let last = false;
    let sawStreamInfo = false;
    while (!last) {
      const head = await readAt(file, at, peek);
      if (head.length < 4) notPlain();
      last = (head[0]! & 0x80) !== 0;
      const type = head[0]! & 0x7f;
      const length = (head[1]! << 16) | (head[2]! << 8) | head[3]!;
      if (type > lastKnownType || at + 4 + length > file.size) notPlain();
      if (type === streamInfoBlock) {
        if (length !== 34) notPlain();
        readStreamInfo(head.subarray(4), metadata);
        sawStreamInfo = true;
      } else if (type === commentBlock) {
        await readComment(await readAt(file, at + 4, length), metadata);
      }
      at += 4 + length;
    }
    if (!sawStreamInfo) notPlain();
    const { duration } = metadata.format;
    if (file.size && duration) setFormat(metadata, 'bitrate', (8 * (file.size - at)) / duration);
  });
}

/** The STREAMINFO block's properties, read with music-metadata's own bit reader. */
function readStreamInfo(b: Uint8Array, metadata: Collector): void {
  const format = (key: string, value: unknown) => setFormat(metadata, key, value);
  const sampleRate = ((b[10]! << 16) | (b[11]! << 8) | b[12]!) >> 4;
  const totalSamples = bitsAt(b, 13, 4, 36);
  format('container', 'FLAC');
  format('codec', 'FLAC');
  format('hasAudio', true);
  format('lossless', true);
  format('numberOfChannels', bitsAt(b, 12, 4, 3) + 1);
  format('bitsPerSample', bitsAt(b, 12, 7, 5) + 1);
  format('sampleRate', sampleRate);
  if (totalSamples > 0) format('duration', totalSamples / sampleRate);
}

/** A Vorbis comment block: the vendor as the tool, each comment a tag (ENCODER the tool too). */
async function readComment(b: Uint8Array, metadata: Collector): Promise<void> {
  const { vendor, comments } = vorbisComment(b, 0);
  if (vendor.length > 0) setFormat(metadata, 'tool', vendor);
  for (const { key, value } of comments) {
    if (key === 'ENCODER') setFormat(metadata, 'tool', value);
    // A picture in the comment is a cover: skipped, as the scan asks.
    if (key === 'METADATA_BLOCK_PICTURE') continue;
    await metadata.addTag('vorbis', key, value);
  }
}
