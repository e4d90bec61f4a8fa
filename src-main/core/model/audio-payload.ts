/**
 * Where a file's audio is, tags excluded: the byte ranges that "Find duplicate audio" hashes, so
 * that two files holding the same audio compare equal whatever their tags, cover art or names.
 * The container is decided from the file's own bytes, never from its name:
 * - MP3 and other MPEG audio: from the first frame (past every ID3v2 tag and the padding a tagger
 *   may leave) to before the ID3v1, APEv2, Lyrics3v2 or appended ID3v2 tags at the end;
 * - FLAC: the frames, past `fLaC` and every metadata block (Vorbis comments, pictures, padding),
 *   less an ID3 tag a tagger put before or after them;
 * - WAV and RF64: the `fmt ` chunk (how to play the samples) then the `data` chunk's body;
 * - AIFF and AIFC: the `COMM` chunk then the sound data of the `SSND` chunk;
 * - MP4 and M4A: the bodies of the `mdat` boxes;
 * - Ogg: the bodies of the pages after each stream's header pages (granule position 0, and -1
 *   before the stream's first audio page: comments with cover art span many pages), without the
 *   page headers, whose sequence numbers and CRCs change when the comments do;
 * - anything else: the whole file, less leading ID3v2 and trailing ID3v1/APEv2 tags (as
 *   WavPack, Monkey's Audio, Musepack and ADTS AAC files carry).
 * It is the audio as stored: the same sound encoded again gives other bytes, so other audio.
 * Free of Node APIs: the renderer bundles it.
 */
import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32be, u32le, u64 } from './bytes.js';
import { chunksOf, oggPageAt, topLevelBoxes } from './containers.js';
import { afterId3v2, beforeTrailingTags, mpegAudioStart } from './integrity.js';

/** A range of a file's bytes: `start` included, `end` excluded. */
export interface ByteRange {
  start: number;
  end: number;
}

/** How a payload was found: by its container, or `other` (the file less its ID3/APE tags). */
export type PayloadKind = 'mpeg' | 'flac' | 'wave' | 'aiff' | 'mp4' | 'ogg' | 'other';

/** A file's audio payload. */
export interface AudioPayload {
  kind: PayloadKind;
  /** The ranges to hash, in the order to hash them (not always the file's order). */
  ranges: ByteRange[];
  /** Their total length in bytes. */
  length: number;
}

/** The payload of ranges clamped to the file, empty ones dropped and touching ones merged. */
function payload(kind: PayloadKind, source: ByteSource, ranges: ByteRange[]): AudioPayload {
  const kept: ByteRange[] = [];
  for (const range of ranges) {
    const start = Math.max(0, Math.min(range.start, source.size));
    const end = Math.max(start, Math.min(range.end, source.size));
    if (end === start) continue;
    const last = kept.at(-1);
    if (last && last.end === start) last.end = end;
    else kept.push({ start, end });
  }
  return { kind, ranges: kept, length: kept.reduce((n, r) => n + r.end - r.start, 0) };
}

/** The file less its leading ID3v2 and trailing ID3v1/APEv2/Lyrics3 tags. */
async function untagged(source: ByteSource, kind: PayloadKind, start?: number) {
  const from = start ?? (await afterId3v2(source));
  return payload(kind, source, [{ start: from, end: await beforeTrailingTags(source, from) }]);
}

async function flacPayload(source: ByteSource, start: number): Promise<AudioPayload | null> {
  let position = start + 4;
  for (let i = 0; i < 1000; i++) {
    const header = await readAt(source, position, 4);
    if (header.length < 4) return null;
    position += 4 + ((header[1]! << 16) | (header[2]! << 8) | header[3]!);
    if (header[0]! & 0x80) return untagged(source, 'flac', position);
  }
  return null;
}

/** The format chunk's range first (wherever it is), then the audio's. */
const formatThenAudio = (format: ByteRange | undefined, audio: ByteRange) =>
  format ? [format, audio] : [audio];

async function wavePayload(source: ByteSource): Promise<AudioPayload | null> {
  let format: ByteRange | undefined;
  let data: ByteRange | undefined;
  let ds64Data: number | undefined;
  for await (const { id, size, body, bytes } of chunksOf(source, 'le', 16)) {
    if (id === 'fmt ') format = { start: body, end: body + size };
    if (id === 'ds64') ds64Data = u64(u32le(bytes, 8 + 12), u32le(bytes, 8 + 8));
    if (id === 'data' && !data) {
      const declared = size === 0xffffffff && ds64Data !== undefined ? ds64Data : size;
      // A streamed WAV's writer could not go back to fill the size in: the rest is audio.
      const streamed = declared === 0xffffffff || declared === 0;
      data = { start: body, end: streamed ? source.size : body + declared };
      if (streamed) break;
    }
    if (format && data) break;
  }
  return data ? payload('wave', source, formatThenAudio(format, data)) : null;
}

async function aiffPayload(source: ByteSource): Promise<AudioPayload | null> {
  let common: ByteRange | undefined;
  let sound: ByteRange | undefined;
  for await (const { id, size, body, bytes } of chunksOf(source, 'be', 8)) {
    if (id === 'COMM') common = { start: body, end: body + size };
    // The sound data starts past an offset and block size, and past `offset` more bytes.
    if (id === 'SSND' && !sound) sound = { start: body + 8 + u32be(bytes, 8), end: body + size };
    if (common && sound) break;
  }
  return sound ? payload('aiff', source, formatThenAudio(common, sound)) : null;
}

async function mp4Payload(source: ByteSource): Promise<AudioPayload | null> {
  const media = (await topLevelBoxes(source)).filter((box) => box.type === 'mdat');
  if (media.length === 0) return null;
  return payload(
    'mp4',
    source,
    media.map((box) => ({ start: box.body, end: box.end })),
  );
}

/** The largest Ogg page header: 27 bytes and a table of up to 255 segments. */
const oggHeaderMax = 27 + 255;

/** Where the next `OggS` capture pattern in `b` from `from` starts, or -1. */
function nextCapture(b: Uint8Array, from: number): number {
  for (let i = b.indexOf(0x4f, from); i >= 0 && i + 4 <= b.length; i = b.indexOf(0x4f, i + 1)) {
    if (b[i + 1] === 0x67 && b[i + 2] === 0x67 && b[i + 3] === 0x53) return i;
  }
  return -1;
}

async function oggPayload(source: ByteSource): Promise<AudioPayload> {
  const ranges: ByteRange[] = [];
  // Streams (by serial number) whose first audio page has been seen.
  const playing = new Set<number>();
  let window: Uint8Array = new Uint8Array(0);
  let windowStart = 0;
  let position = 0;
  while (position + 27 <= source.size) {
    if (position + oggHeaderMax > windowStart + window.length) {
      window = await readAt(source, position, 64 * 1024);
      windowStart = position;
    }
    const page = oggPageAt(window, position - windowStart);
    if (page === 'partial') break;
    if (page === null) {
      // Not on a page: find the next one (data between pages is not audio).
      const next = nextCapture(window, position - windowStart + 1);
      if (next < 0 && windowStart + window.length >= source.size) break;
      position = next < 0 ? windowStart + window.length - 3 : windowStart + next;
      continue;
    }
    const body = position + page.headerSize;
    const end = body + page.bodySize;
    const header = page.granule === 0 || (page.granule === null && !playing.has(page.serial));
    if (!header) {
      ranges.push({ start: body, end });
      if (page.granule !== null) playing.add(page.serial);
    }
    position = end;
  }
  return payload('ogg', source, ranges);
}

/** Where the audio of the file in `source` is (see the top of this file). */
export async function audioPayload(source: ByteSource): Promise<AudioPayload> {
  const head = await readAt(source, 0, 12);
  const magic = ascii(head, 0, 4);
  const form = ascii(head, 8, 4);
  let found: AudioPayload | null = null;
  if ((magic === 'RIFF' || magic === 'RF64') && form === 'WAVE') found = await wavePayload(source);
  else if (magic === 'FORM' && (form === 'AIFF' || form === 'AIFC')) {
    found = await aiffPayload(source);
  } else if (magic === 'OggS') found = await oggPayload(source);
  else if (ascii(head, 4, 4) === 'ftyp') found = await mp4Payload(source);
  else {
    const start = await afterId3v2(source);
    if (ascii(await readAt(source, start, 4), 0, 4) === 'fLaC') {
      found = await flacPayload(source, start);
    } else {
      const audio = await mpegAudioStart(source);
      if (audio !== null) found = await untagged(source, 'mpeg', audio);
    }
  }
  return found ?? untagged(source, 'other');
}
