/**
 * A lean reader of AIFF files as encoders and taggers write them (FORM/AIFF or AIFC with COMM,
 * SSND and an ID3 chunk), giving exactly what music-metadata's AIFF parser gives for them: the
 * chunks are walked from the block cache with no promise per field, and the ID3 chunk is read
 * by music-metadata's own ID3v2 parser, as its AIFF parser reads it. Text chunks, a compression
 * name, a chunk name it would reject and a chunk past the file's end are left to music-metadata
 * (`plain-read.ts`). Free of Node APIs: the renderer bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';

import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32be } from './bytes.js';
import { notPlain, readId3Chunk, readPlainly, setFormat } from './plain-read.js';

/** A chunk name music-metadata accepts (its `FourCcToken`). */
// eslint-disable-next-line no-control-regex -- a NUL may pad a chunk name, as music-metadata allows
const fourCc = /^[\x21-\x7e©][\x20-\x7e\x00()]{3}/;

/** Chunks music-metadata reads as text: left to it. */
const textChunks = new Set(['NAME', 'AUTH', '(c) ', 'ANNO']);

const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;

/**
 * What music-metadata would give for the AIFF file `source` (covers skipped, as the scan asks),
 * or null when the file is not plain enough to be read here.
 */
export function readPlainAiff(source: ByteSource): Promise<IAudioMetadata | null> {
  return readPlainly(source, async (file, metadata) => {
    const format = (key: string, value: unknown) => setFormat(metadata, key, value);
    const head = await readAt(file, 0, 12);
    if (head.length < 12 || ascii(head, 0, 4) !== 'FORM') notPlain();
    const type = ascii(head, 8, 4);
    // An AIFC names its compression: only plain AIFF is read here.
    if (type !== 'AIFF') notPlain();
    format('container', 'AIFF');
    format('lossless', true);
    format('hasAudio', true);
    format('hasVideo', false);
    let at = 12;
    while (file.size - at >= 8) {
      const chunk = await readAt(file, at, 8);
      const id = ascii(chunk, 0, 4);
      if (!fourCc.test(id) || textChunks.has(id)) notPlain();
      const size = u32be(chunk, 4);
      const body = at + 8;
      if (body + size > file.size) notPlain();
      if (id === 'COMM') {
        if (size < 18) notPlain();
        const comm = await readAt(file, body, 18);
        const shift = u16be(comm, 8) - 16398;
        const base = u16be(comm, 10);
        const sampleRate = shift < 0 ? base >> Math.abs(shift) : base << shift;
        const frames = u32be(comm, 2);
        format('bitsPerSample', u16be(comm, 6));
        format('sampleRate', sampleRate);
        format('numberOfChannels', u16be(comm, 0));
        format('numberOfSamples', frames);
        format('duration', frames / sampleRate);
        format('codec', 'PCM');
      } else if (id === 'ID3 ') {
        await readId3Chunk(await readAt(file, body, size), metadata);
      } else if (id === 'SSND') {
        const { duration } = metadata.format;
        if (duration) format('bitrate', (8 * size) / duration);
      }
      at = body + 2 * Math.round(size / 2);
    }
  });
}
