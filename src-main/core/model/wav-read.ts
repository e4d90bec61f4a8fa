/**
 * A lean reader of WAV files as encoders and taggers write them (RIFF/WAVE with fmt, data and an
 * ID3 chunk, a RIFF INFO list), giving exactly what music-metadata's WAV parser gives for them:
 * the chunks are walked from the block cache with no promise per field, and the ID3 chunk is read
 * by music-metadata's own ID3v2 parser, as its WAV parser reads it. BWF, fact and code-page
 * chunks, anything it would skip with a warning, and a chunk past the file's end are left to
 * music-metadata (`plain-read.ts`). Free of Node APIs: the renderer bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';

import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32le } from './bytes.js';
import { type Collector, notPlain, readId3Chunk, readPlainly, setFormat } from './plain-read.js';

/** music-metadata's names of WAV format tags (`WaveFormatNameMap`). */
const formatNames: Record<number, string> = {
  0x0001: 'PCM',
  0x0002: 'ADPCM',
  0x0003: 'IEEE_FLOAT',
  0x0006: 'ALAW',
  0x0007: 'MULAW',
  0x0011: 'DVI_ADPCM',
  0x0031: 'GSM610',
  0x1600: 'MPEG_ADTS_AAC',
  0x1602: 'MPEG_LOAS',
  0x00ff: 'RAW_AAC1',
  0x0092: 'DOLBY_AC3_SPDIF',
  0x2000: 'DVM',
  0x0240: 'RAW_SPORT',
  0x0241: 'ESST_AC3',
  0x0009: 'DRM',
  0x2001: 'DTS2',
  0x0050: 'MPEG',
  0x0055: 'MPEGLAYER3',
};

const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);

/**
 * What music-metadata would give for the WAV file `source` (covers skipped, as the scan asks),
 * or null when the file is not plain enough to be read here.
 */
export function readPlainWav(source: ByteSource): Promise<IAudioMetadata | null> {
  return readPlainly(source, async (file, metadata) => {
    const format = (key: string, value: unknown) => setFormat(metadata, key, value);
    const head = await readAt(file, 0, 12);
    if (head.length < 12 || ascii(head, 0, 4) !== 'RIFF' || ascii(head, 8, 4) !== 'WAVE') {
      notPlain();
    }
    format('hasAudio', true);
    format('hasVideo', false);
    format('container', 'WAVE');
    let remaining = u32le(head, 4) - 4;
    let at = 12;
    let blockAlign = 0;
    let bytesPerSecond = 0;
    const info: { id: string; value: string }[] = [];
    while (remaining >= 8) {
      const chunk = await readAt(file, at, 8);
      if (chunk.length < 8) notPlain();
      const id = ascii(chunk, 0, 4);
      const size = u32le(chunk, 4);
      const body = at + 8;
      if (body + size > file.size) notPlain();
      remaining -= 8 + size;
      // music-metadata says so of every chunk longer than what it counts as left (the last one).
      if (size > remaining) metadata.addWarning('Data chunk size exceeds file size');
      if (id === 'fmt ') {
        if (size < 16) notPlain();
        const fmt = await readAt(file, body, 16);
        const tag = u16le(fmt, 0);
        format('codec', formatNames[tag] ?? `non-PCM (${tag})`);
        format('bitsPerSample', u16le(fmt, 14));
        format('sampleRate', u32le(fmt, 4));
        format('numberOfChannels', u16le(fmt, 2));
        blockAlign = u16le(fmt, 12);
        bytesPerSecond = u32le(fmt, 8);
      } else if (id === 'id3 ' || id === 'ID3 ') {
        await readId3Chunk(await readAt(file, body, size), metadata);
      } else if (id === 'LIST') {
        info.push(...(await infoList(await readAt(file, body, size), metadata)));
      } else if (id === 'data') {
        format('lossless', true);
        const samples = size === 0xffffffff ? undefined : size / blockAlign;
        if (samples) {
          format('numberOfSamples', samples);
          const { sampleRate } = metadata.format;
          if (sampleRate) format('duration', samples / sampleRate);
        }
        const { duration } = metadata.format;
        if (bytesPerSecond > 0) format('bitrate', bytesPerSecond * 8);
        else if (duration) format('bitrate', (size * 8) / duration);
      } else {
        notPlain();
      }
      at = body + size + (size % 2);
    }
    // Read as Latin-1 (no code page chunk says otherwise) once every chunk is read.
    for (const { id, value } of info) await metadata.addTag('exif', id, value);
  });
}

/**
 * A RIFF INFO list's tags as music-metadata reads them: each value up to its first NUL; the tag
 * type is registered when the list is read, as it is there.
 */
async function infoList(
  b: Uint8Array,
  metadata: Collector,
): Promise<{ id: string; value: string }[]> {
  if (b.length < 4 || ascii(b, 0, 4) !== 'INFO') notPlain();
  const tags: { id: string; value: string }[] = [];
  let left = b.length - 4;
  let at = 4;
  while (left >= 8) {
    const id = ascii(b, at, 4);
    const size = u32le(b, at + 4);
    const padded = size + (size & 1);
    if (at + 8 + padded > b.length) notPlain();
    metadata.registerTagType('exif');
    tags.push({ id, value: ascii(b, at + 8, size).split('\0', 1)[0]! });
    left -= 8 + padded;
    at += 8 + padded;
  }
  if (left !== 0) notPlain();
  return tags;
}
