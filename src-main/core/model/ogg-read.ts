/**
 * A lean reader of Ogg Vorbis and Ogg Opus files as encoders write them (one logical stream),
 * giving exactly what music-metadata's Ogg parser gives for them: it follows the pages as that
 * parser does (stopping where it stops, past page 12 once the comment is read), reads the
 * identification and comment headers, and takes the duration from the same last page. A file
 * with several streams, another codec, a page it would warn about or fail on, or a header that
 * does not add up is left to music-metadata (`plain-read.ts`). Free of Node APIs: the renderer
 * bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';

import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32le } from './bytes.js';
import { type Collector, notPlain, readPlainly, setFormat, vorbisComment } from './plain-read.js';

/** Text as music-metadata's 'ascii' decoding gives it: each byte's low seven bits. */
function text7(b: Uint8Array, at: number, length: number): string {
  let text = '';
  for (let i = at; i < Math.min(at + length, b.length); i++)
    text += String.fromCharCode(b[i]! & 0x7f);
  return text;
}

/** The page music-metadata stops after, once every stream's comment is read. */
const lastPageRead = 12;

interface Page {
  continued: boolean;
  first: boolean;
  last: boolean;
  /** The granule position as music-metadata reads it (unsigned: -1 is 2^64 - 1). */
  granule: number;
  sequence: number;
  serial: number;
  data: Uint8Array;
}

/** The codec's part: what its first page says, what its comment packet holds, its duration. */
interface Codec {
  first(data: Uint8Array, metadata: Collector): void;
  /** A packet the pages gathered (continued pages joined); `end` is where the reading stands. */
  packet(data: Uint8Array, end: number, metadata: Collector): Promise<void>;
  duration(last: Page, ended: boolean, size: number, metadata: Collector): void;
  commentRead: boolean;
}

/**
 * What music-metadata would give for the Ogg file `source` (covers skipped, as the scan asks),
 * or null when the file is not plain enough to be read here.
 */
export function readPlainOgg(source: ByteSource): Promise<IAudioMetadata | null> {
  return readPlainly(source, async (file, metadata) => {
    let at = 0;
    let codec: Codec | undefined;
    let serial: number | undefined;
    let gathered: Uint8Array[] = [];
    let last: Page | undefined;
    let closed = false;
    let stoppedEarly = false;
    while (!closed) {
      const page = await readPage(file, at);
      at += page.size;
      if (serial === undefined) serial = page.serial;
      else if (page.serial !== serial) notPlain();
      if (page.first) {
        // A second first page restarts the stream in music-metadata: left to it.
        if (codec) notPlain();
        setFormat(metadata, 'container', 'Ogg');
        codec = codecOf(page.data);
      }
      if (page.last) closed = true;
      if (!codec) notPlain();
      last = page;
      if (page.first) codec!.first(page.data, metadata);
      else {
        if (page.continued) {
          if (gathered.length === 0) notPlain();
          gathered.push(page.data);
        }
        if (page.last || !page.continued) {
          if (gathered.length > 0) await codec!.packet(joined(gathered), at, metadata);
          gathered = page.last ? [] : [page.data];
        }
      }
      if (page.sequence > lastPageRead && codec!.commentRead) {
        stoppedEarly = true;
        break;
      }
    }
    // A stream music-metadata stopped reading early gives what its pages so far hold.
    if (!closed) {
      if (!stoppedEarly) notPlain();
      await codec!.packet(joined(gathered), at, metadata);
    }
    codec!.duration(last!, false, file.size, metadata);
  });
}

/** The page whose header starts at `at`, with its data (music-metadata's `PageHeader`). */
async function readPage(source: ByteSource, at: number): Promise<Page & { size: number }> {
  const head = await readAt(source, at, 27 + 255);
  if (head.length < 27 || ascii(head, 0, 4) !== 'OggS') notPlain();
  const segments = head[26]!;
  if (head.length < 27 + segments) notPlain();
  let length = 0;
  for (let i = 0; i < segments; i++) length += head[27 + i]!;
  const start = at + 27 + segments;
  if (start + length > source.size) notPlain();
  const data = await readAt(source, start, length);
  const flags = head[5]!;
  return {
    continued: (flags & 1) !== 0,
    first: (flags & 2) !== 0,
    last: (flags & 4) !== 0,
    granule: Number((BigInt(u32le(head, 10)) << 32n) | BigInt(u32le(head, 6))),
    serial: u32le(head, 14),
    sequence: u32le(head, 18),
    data,
    size: 27 + segments + length,
  };
}

/** Pages' data joined into one packet's bytes (music-metadata's `mergeUint8Arrays`). */
function joined(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** The codec the first page names, as music-metadata tells them apart (its printable bytes). */
function codecOf(data: Uint8Array): Codec {
  let id = '';
  for (const c of data.subarray(0, 7)) if (c >= 32 && c <= 126) id += String.fromCharCode(c);
  if (id === 'vorbis') return vorbis();
  if (id === 'OpusHea') return opus();
  return notPlain();
}

/** The comment of a packet from `at` (after its codec's marker): each comment a tag. */
async function readComments(data: Uint8Array, at: number, metadata: Collector): Promise<void> {
  for (const { key, value } of vorbisComment(data, at).comments) {
    // A picture in the comment is a cover: skipped, as the scan asks.
    if (key !== 'METADATA_BLOCK_PICTURE') await metadata.addTag('vorbis', key, value);
  }
}

/** Ogg Vorbis, as music-metadata's `VorbisStream` reads it. */
function vorbis(): Codec {
  const codec: Codec = {
    commentRead: false,
    first(data, metadata) {
      setFormat(metadata, 'codec', 'Vorbis I');
      setFormat(metadata, 'hasAudio', true);
      if (data.length < 7 + 23 || data[0] !== 1 || text7(data, 1, 6) !== 'vorbis') notPlain();
      setFormat(metadata, 'sampleRate', u32le(data, 12));
      setFormat(metadata, 'bitrate', u32le(data, 20));
      setFormat(metadata, 'numberOfChannels', data[11]);
    },
    async packet(data, _end, metadata) {
      if (data.length < 7) notPlain();
      if (data[0] === 3) {
        await readComments(data, 7, metadata);
        codec.commentRead = true;
      }
    },
    duration(last, ended, _size, metadata) {
      const { sampleRate } = metadata.format;
      if ((ended || last.last) && sampleRate) {
        setFormat(metadata, 'numberOfSamples', last.granule);
        setFormat(metadata, 'duration', last.granule / sampleRate);
      }
    },
  };
  return codec;
}

/** Ogg Opus, as music-metadata's `OpusStream` reads it. */
function opus(): Codec {
  let preSkip = 0;
  let tagsEnd = -1;
  const codec: Codec = {
    commentRead: false,
    first(data, metadata) {
      setFormat(metadata, 'codec', 'Opus');
      if (data.length < 19 || text7(data, 0, 8) !== 'OpusHead') notPlain();
      preSkip = data[10]! | (data[11]! << 8);
      setFormat(metadata, 'sampleRate', u32le(data, 12));
      setFormat(metadata, 'numberOfChannels', data[9]);
      setFormat(metadata, 'hasAudio', true);
      setFormat(metadata, 'hasVideo', false);
    },
    async packet(data, end, metadata) {
      if (text7(data, 0, 8) === 'OpusTags') {
        await readComments(data, 8, metadata);
        codec.commentRead = true;
        // Where music-metadata counts the audio from (its reading position less the packet).
        tagsEnd = end - data.length;
      }
    },
    duration(last, ended, size, metadata) {
      if ((ended || last.last) && metadata.format.sampleRate) {
        const samples = last.granule - preSkip;
        setFormat(metadata, 'numberOfSamples', samples);
        setFormat(metadata, 'duration', samples / 48000);
        const { duration } = metadata.format;
        if (tagsEnd !== -1 && size && duration) {
          setFormat(metadata, 'bitrate', (8 * (size - tagsEnd)) / duration);
        }
      }
    },
  };
  return codec;
}
