/**
 * Whether a master is whole, from its own structure: the length its header records against
 * where its audio really ends, reading a few KiB at its start and end, never the whole file.
 * MP3 (Xing/Info/VBRI frame and byte counts; the last frame complete), FLAC (STREAMINFO total
 * samples against the last frame's position; the last frame's CRC), WAV and AIFF (the audio
 * chunk's size against the file's; a chunk after the audio cut short is noted), MP4 (the sample
 * table against the file's size), Ogg (the last page complete and marked as the end) and WMA (its
 * Data object's size against the file's). Free of Node APIs: the renderer bundles it.
 */
import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u16be, u32be, u32le, u64 } from './bytes.js';
import { type Box, chunksOf, oggPageAt, topLevelBoxes } from './containers.js';

/** What the structure of a file says about its audio. */
export interface Integrity {
  /** `unchecked`: a format not checked here, or nothing to go on. */
  state: 'complete' | 'cut-short' | 'unchecked';
  /** Seconds of audio the file holds (cut-short), when measurable. */
  endsAt?: number;
  /** Seconds the header says the master lasts, when recorded. */
  length?: number;
  /** What is wrong, in a user's words (cut-short). */
  detail?: string;
  /** The full duration as measured from the structure (when music-metadata gives none). */
  duration?: number;
  /** A FLAC whose STREAMINFO holds the MD5 of its audio. */
  md5?: boolean;
  /**
   * A whole master whose file was cut after its audio, inside the chunk named here (its tags,
   * mostly): the audio is all there, what that chunk held is lost.
   */
  cutAfterAudio?: string;
  /** The sample rate and channels the structure records, where the parser gives none (WMA). */
  sampleRate?: number;
  channels?: number;
}

const unchecked: Integrity = { state: 'unchecked' };

/** An ID3v2 tag's size, from its header or footer at `at` (a 28-bit "synchsafe" integer). */
const id3v2Size = (b: Uint8Array, at: number) =>
  ((b[at + 6]! & 0x7f) << 21) |
  ((b[at + 7]! & 0x7f) << 14) |
  ((b[at + 8]! & 0x7f) << 7) |
  (b[at + 9]! & 0x7f);

/** Where the ID3v2 tags at the start of a file end (several may follow one another). */
export async function afterId3v2(source: ByteSource): Promise<number> {
  let position = 0;
  for (let i = 0; i < 8; i++) {
    const head = await readAt(source, position, 10);
    if (head.length < 10 || ascii(head, 0, 3) !== 'ID3') break;
    position += 10 + id3v2Size(head, 0) + (head[5]! & 0x10 ? 10 : 0);
  }
  return position;
}

/**
 * Where the audio ends: before the ID3v1, APEv2, Lyrics3v2 and appended ID3v2 tags at the end of
 * the file (in any order), never before `start`.
 */
export async function beforeTrailingTags(source: ByteSource, start: number): Promise<number> {
  let end = source.size;
  for (let i = 0; i < 6 && end > start; i++) {
    const tail = await readAt(source, Math.max(start, end - 160), Math.min(160, end - start));
    const at = (offset: number) => tail.length - offset;
    if (tail.length >= 128 && ascii(tail, at(128), 3) === 'TAG') {
      end -= 128;
    } else if (tail.length >= 32 && ascii(tail, at(32), 8) === 'APETAGEX') {
      const size = u32le(tail, at(32) + 12);
      const hasHeader = (u32le(tail, at(32) + 20) & 0x80000000) !== 0;
      end -= size + (hasHeader ? 32 : 0);
    } else if (tail.length >= 15 && ascii(tail, at(9), 9) === 'LYRICS200') {
      const size = Number(ascii(tail, at(15), 6));
      if (!Number.isInteger(size)) break;
      end -= 15 + size;
    } else if (tail.length >= 10 && ascii(tail, at(10), 3) === '3DI') {
      // An ID3v2.4 tag appended with its footer: header and footer are 10 bytes each.
      end -= 20 + id3v2Size(tail, at(10));
    } else {
      break;
    }
  }
  return Math.max(start, end);
}

/**
 * Where a run of zero bytes ending at `end` starts (`end` when there is none): a download that
 * stopped leaves its file at full size with zeros where the rest of the audio should be.
 */
async function zeroRunStart(source: ByteSource, start: number, end: number): Promise<number> {
  const chunk = 64 * 1024;
  let position = end;
  while (position > start && end - position < 256 * 1024 * 1024) {
    const from = Math.max(start, position - chunk);
    const bytes = await readAt(source, from, position - from);
    let i = bytes.length;
    while (i > 0 && bytes[i - 1] === 0) i--;
    position = from + i;
    if (i > 0) break;
  }
  return position;
}

/** Trailing zeros worth reporting in a compressed stream (encoders pad a few bytes at most). */
const zeroRunMinimum = 4096;

const zerosDetail = (bytes: number) =>
  `its last ${Math.round(bytes / 1024).toLocaleString('en')} KiB are zeros, as a download that stopped leaves a file`;

// ---- MPEG audio (MP3, layers I and II) ----

interface MpegFrame {
  version: 1 | 2 | 25;
  layer: 1 | 2 | 3;
  bitrate: number;
  sampleRate: number;
  mono: boolean;
  length: number;
  samples: number;
}

const mpegBitrates: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const mpegRates: Record<number, number[]> = {
  1: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  25: [11025, 12000, 8000],
};

/** The MPEG audio frame header at `at`, or null (free-format frames are not followed). */
function mpegFrame(b: Uint8Array, at: number): MpegFrame | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null;
  const versionBits = (b[at + 1]! >> 3) & 3;
  const layerBits = (b[at + 1]! >> 1) & 3;
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15) {
    return null;
  }
  if (rateIndex === 3) return null;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 25;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const table = version === 1 ? `1-${layer}` : layer === 1 ? '2-1' : '2-2';
  const bitrate = mpegBitrates[table]![bitrateIndex]!;
  const sampleRate = mpegRates[version]![rateIndex]!;
  const padding = (b[at + 2]! >> 1) & 1;
  const length =
    layer === 1
      ? Math.floor((12000 * bitrate) / sampleRate + padding) * 4
      : Math.floor(((layer === 3 && version !== 1 ? 72000 : 144000) * bitrate) / sampleRate) +
        padding;
  const samples = layer === 1 ? 384 : layer === 3 && version !== 1 ? 576 : 1152;
  return { version, layer, bitrate, sampleRate, mono: b[at + 3]! >> 6 === 3, length, samples };
}

/** Bytes per second of the frames chained from `first` in `head` (VBR without a header too). */
function averageBytesPerSecond(head: Uint8Array, first: number, frame: MpegFrame): number {
  let bytes = 0;
  let seconds = 0;
  for (let at = first, f = mpegFrame(head, at); f && sameStream(f, frame);) {
    bytes += f.length;
    seconds += f.samples / f.sampleRate;
    at += f.length;
    f = mpegFrame(head, at);
  }
  return seconds > 0 ? bytes / seconds : (frame.bitrate * 1000) / 8;
}

/** Whether the bytes from `at` to the end of `b` (fewer than four) begin an MPEG frame header. */
const syncStarts = (b: Uint8Array, at: number) =>
  b[at] === 0xff && (at + 1 >= b.length || (b[at + 1]! & 0xe0) === 0xe0);

const sameStream = (a: MpegFrame, b: MpegFrame) =>
  a.version === b.version && a.layer === b.layer && a.sampleRate === b.sampleRate;

/** The frame count and byte count an Xing/Info or VBRI header records in the first frame. */
function vbrHeader(b: Uint8Array, at: number, frame: MpegFrame) {
  const side = frame.version === 1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17;
  const xing = at + 4 + side;
  const tag = ascii(b, xing, 4);
  if (tag === 'Xing' || tag === 'Info') {
    const flags = u32be(b, xing + 4);
    let field = xing + 8;
    const frames = flags & 1 ? u32be(b, field) : undefined;
    if (flags & 1) field += 4;
    const bytes = flags & 2 ? u32be(b, field) : undefined;
    return { frames, bytes };
  }
  if (ascii(b, at + 36, 4) === 'VBRI') {
    return { bytes: u32be(b, at + 36 + 10), frames: u32be(b, at + 36 + 14) };
  }
  return { frames: undefined, bytes: undefined };
}

/**
 * The first MPEG audio frame after the ID3v2 tags: a header followed by another of the same
 * stream (or by the end of the file), searched in the first 64 KiB after the tags (`head`).
 */
async function firstMpegFrame(source: ByteSource) {
  const start = await afterId3v2(source);
  const head = await readAt(source, start, 64 * 1024);
  for (let i = head.indexOf(0xff); i >= 0 && i + 4 <= head.length; i = head.indexOf(0xff, i + 1)) {
    const frame = mpegFrame(head, i);
    if (!frame) continue;
    const next = mpegFrame(head, i + frame.length);
    if ((next && sameStream(frame, next)) || start + i + frame.length >= source.size) {
      return { start, head, first: i, frame };
    }
  }
  return null;
}

/**
 * Where an MPEG audio file's first frame starts (past its ID3v2 tags and any padding a tagger
 * left after them), or null when no frame is found near the start.
 */
export async function mpegAudioStart(source: ByteSource): Promise<number | null> {
  const found = await firstMpegFrame(source);
  return found ? found.start + found.first : null;
}

async function checkMpeg(source: ByteSource): Promise<Integrity> {
  // A file cut inside its ID3v2 tag (a large cover, say) holds no audio at all.
  if ((await afterId3v2(source)) >= source.size && source.size > 10) {
    return cut(0, undefined, 'the file ends inside its ID3 tag, before any audio');
  }
  const found = await firstMpegFrame(source);
  if (!found) return unchecked;
  const { head, first, frame } = found;
  const audioStart = found.start + first;
  const fullEnd = await beforeTrailingTags(source, audioStart);
  const zeros = await zeroRunStart(source, audioStart, fullEnd);
  const end = fullEnd - zeros >= zeroRunMinimum ? zeros : fullEnd;
  const { frames, bytes } = vbrHeader(head, first, frame);
  const length = frames ? (frames * frame.samples) / frame.sampleRate : undefined;
  const bytesPerSecond =
    bytes && length ? bytes / length : averageBytesPerSecond(head, first, frame);
  const at = (position: number) => (position - audioStart) / bytesPerSecond;
  const duration = length ?? at(fullEnd);
  if (end < fullEnd) {
    return cut(at(end), duration, zerosDetail(fullEnd - end));
  }
  // Cut where the recorded byte count says more follows (a frame of slack for writers' rounding).
  if (bytes && length && audioStart + bytes > end + frame.length * 2) {
    return cut(at(end), length, 'the audio ends before the length recorded in its first frame');
  }
  // Otherwise the last frame must be whole: a chain of frames in the tail reaches the end.
  const tailStart = Math.max(audioStart, end - 16 * 1024);
  const tail = await readAt(source, tailStart, end - tailStart);
  // A frame counts when the one before it in the tail ends where it starts.
  const ends = new Set<number>();
  let lastChained = -1;
  let chainedEnd = -1;
  for (let i = tail.indexOf(0xff); i >= 0 && i + 4 <= tail.length; i = tail.indexOf(0xff, i + 1)) {
    const f = mpegFrame(tail, i);
    if (!f || !sameStream(f, frame)) continue;
    ends.add(i + f.length);
    if (!ends.has(i) && tailStart + i !== audioStart) continue;
    if (i + f.length === tail.length) return { state: 'complete', duration };
    if (i + f.length > tail.length) lastChained = i;
    else chainedEnd = Math.max(chainedEnd, i + f.length);
  }
  // Cut within the next frame's four header bytes: what is left of it is its sync.
  const left = tail.length - chainedEnd;
  if (lastChained < 0 && chainedEnd >= 0 && left < 4 && syncStarts(tail, chainedEnd)) {
    lastChained = chainedEnd;
  }
  if (lastChained >= 0) {
    return cut(
      at(tailStart + lastChained),
      length,
      'the last MPEG frame is incomplete, so the file was cut short',
    );
  }
  return { state: 'complete', duration };
}

// ---- FLAC ----

/** The CRC of each byte value for FLAC's CRC-8 (polynomial 0x07) and CRC-16 (0x8005). */
const crcTables = (() => {
  const crc8 = new Uint8Array(256);
  const crc16 = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c8 = n;
    let c16 = n << 8;
    for (let k = 0; k < 8; k++) {
      c8 = c8 & 0x80 ? ((c8 << 1) ^ 0x07) & 0xff : (c8 << 1) & 0xff;
      c16 = c16 & 0x8000 ? ((c16 << 1) ^ 0x8005) & 0xffff : (c16 << 1) & 0xffff;
    }
    crc8[n] = c8;
    crc16[n] = c16;
  }
  return { crc8, crc16 };
})();

function crc8(b: Uint8Array, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) crc = crcTables.crc8[crc ^ b[i]!]!;
  return crc;
}

function crc16(b: Uint8Array, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++)
    crc = ((crc << 8) & 0xffff) ^ crcTables.crc16[(crc >> 8) ^ b[i]!]!;
  return crc;
}

/** A FLAC frame header at `at` (CRC-8 checked): its first sample and its block size. */
function flacFrame(b: Uint8Array, at: number, fixedBlock: number) {
  if (at + 6 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xfe) !== 0xf8) return null;
  const variable = (b[at + 1]! & 1) === 1;
  const sizeCode = b[at + 2]! >> 4;
  const rateCode = b[at + 2]! & 0x0f;
  const channels = b[at + 3]! >> 4;
  const depthCode = (b[at + 3]! >> 1) & 7;
  if (sizeCode === 0 || rateCode === 15 || channels > 10 || depthCode === 3 || b[at + 3]! & 1) {
    return null;
  }
  // The frame or sample number, UTF-8 coded on 1 to 7 bytes.
  let p = at + 4;
  const lead = b[p]!;
  let extra = 0;
  let number = 0;
  if (lead < 0x80) number = lead;
  else if (lead >= 0xc0 && lead < 0xfe) {
    extra = lead >= 0xfc ? 5 : lead >= 0xf8 ? 4 : lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1;
    number = lead & (0x3f >> extra);
  } else if (lead === 0xfe) {
    extra = 6;
  } else return null;
  for (let k = 1; k <= extra; k++) {
    const c = b[p + k];
    if (c === undefined || (c & 0xc0) !== 0x80) return null;
    number = number * 64 + (c & 0x3f);
  }
  p += 1 + extra;
  let block: number;
  if (sizeCode === 1) block = 192;
  else if (sizeCode <= 5) block = 576 << (sizeCode - 2);
  else if (sizeCode === 6) block = (b[p++] ?? 0) + 1;
  else if (sizeCode === 7) {
    block = u16be(b, p) + 1;
    p += 2;
  } else block = 256 << (sizeCode - 8);
  if (rateCode === 12) p += 1;
  else if (rateCode === 13 || rateCode === 14) p += 2;
  if (p >= b.length || crc8(b, at, p) !== b[p]) return null;
  return { sample: variable ? number : number * fixedBlock, block };
}

async function checkFlac(source: ByteSource): Promise<Integrity> {
  const start = await afterId3v2(source);
  const head = await readAt(source, start, 42);
  if (head.length < 42 || ascii(head, 0, 4) !== 'fLaC' || (head[4]! & 0x7f) !== 0) return unchecked;
  const info = head.subarray(8);
  const maxBlock = u16be(info, 2);
  const maxFrame = (info[7]! << 16) | (info[8]! << 8) | info[9]!;
  const sampleRate = (info[10]! << 12) | (info[11]! << 4) | (info[12]! >> 4);
  const total = u64(info[13]! & 0x0f, u32be(info, 14));
  const md5 = info.subarray(18, 34).some((x) => x !== 0);
  if (!sampleRate || !total) return { state: 'unchecked', md5 };
  const length = total / sampleRate;
  // The audio starts after the last metadata block; a file cut inside one (a large picture,
  // say) holds no audio at all.
  let audioStart = start + 4;
  for (let i = 0; i < 1000; i++) {
    const header = await readAt(source, audioStart, 4);
    if (header.length < 4) return { ...cut(0, length, 'the file ends inside its metadata'), md5 };
    audioStart += 4 + ((header[1]! << 16) | (header[2]! << 8) | header[3]!);
    if (header[0]! & 0x80) break;
  }
  const fullEnd = await beforeTrailingTags(source, start);
  if (audioStart >= fullEnd) {
    return { ...cut(0, length, 'the file ends inside its metadata, before any audio'), md5 };
  }
  const zeros = await zeroRunStart(source, audioStart, fullEnd);
  const end = fullEnd - zeros >= zeroRunMinimum ? zeros : fullEnd;
  const span = Math.max(64 * 1024, maxFrame * 3);
  const tailStart = Math.max(audioStart, end - span);
  const tail = await readAt(source, tailStart, end - tailStart);
  let last: { at: number; sample: number; block: number } | null = null;
  // Frames start with 0xff: jumped to natively, not looked for a byte at a time.
  for (let i = tail.indexOf(0xff); i >= 0 && i < tail.length - 6; i = tail.indexOf(0xff, i + 1)) {
    const f = flacFrame(tail, i, maxBlock);
    if (f && f.sample < total && (!last || f.sample > last.sample)) last = { at: i, ...f };
  }
  if (!last) return { state: 'unchecked', md5 };
  if (last.sample + last.block < total) {
    const detail =
      end < fullEnd ? zerosDetail(fullEnd - end) : 'the audio ends before STREAMINFO says';
    return { ...cut(last.sample / sampleRate, length, detail), md5 };
  }
  // The last frame, CRC-16 included, must reach the end of the audio.
  const crc = tail.length >= 2 ? u16be(tail, tail.length - 2) : -1;
  if (crc16(tail, last.at, tail.length - 2) !== crc) {
    return { ...cut(last.sample / sampleRate, length, 'the last FLAC frame is incomplete'), md5 };
  }
  return { state: 'complete', md5 };
}

// ---- WAV and AIFF ----

async function checkWave(source: ByteSource): Promise<Integrity> {
  const head = await readAt(source, 0, 12);
  const riff = ascii(head, 0, 4);
  if (head.length < 12 || (riff !== 'RIFF' && riff !== 'RF64') || ascii(head, 8, 4) !== 'WAVE') {
    return unchecked;
  }
  let byteRate = 0;
  let blockAlign = 0;
  let ds64Data: number | undefined;
  let whole: Integrity | undefined;
  for await (const { id, size, body, bytes: chunk } of chunksOf(source, 'le', 36)) {
    if (whole) {
      const after = cutAfterAudio(whole, id, body + size, source.size);
      if (after) return after;
      continue;
    }
    if (id === 'fmt ') {
      byteRate = u32le(chunk, 8 + 8);
      blockAlign = chunk[8 + 12]! | (chunk[8 + 13]! << 8);
    }
    if (id === 'ds64') ds64Data = u64(u32le(chunk, 8 + 12), u32le(chunk, 8 + 8));
    if (id === 'data') {
      const have = source.size - body;
      const declared = size === 0xffffffff && ds64Data !== undefined ? ds64Data : size;
      // A streamed WAV's writer could not go back to fill the size in: all of the file is audio,
      // so it ends on a whole sample frame unless it was cut.
      const streamed = declared === 0xffffffff || declared === 0;
      if (!byteRate) return unchecked;
      if (streamed && blockAlign > 0 && have % blockAlign !== 0) {
        return cut(
          have / byteRate,
          undefined,
          'its audio ends inside a sample, as a cut file does',
        );
      }
      if (streamed) return { state: 'complete', duration: have / byteRate };
      if (declared > have) {
        return cut(have / byteRate, declared / byteRate, 'the data chunk is longer than the file');
      }
      // Whole: the chunks after the audio (tags) are checked too.
      whole = { state: 'complete', duration: declared / byteRate };
    }
  }
  return whole ?? unchecked;
}

/**
 * The verdict on `whole` (a whole master) that the chunk `id` after its audio gives: a cut after
 * the audio when the chunk, which would end at `end`, runs past the file's `size`; `whole` when
 * the chunk is noise (after a writer's missing pad byte, what follows is not a chunk: the check
 * stops there); null when the chunk is whole, and the next one says.
 */
function cutAfterAudio(whole: Integrity, id: string, end: number, size: number): Integrity | null {
  if (!/^[A-Za-z0-9 ]{4}$/.test(id)) return whole;
  return end > size ? { ...whole, cutAfterAudio: id } : null;
}

/** An 80-bit IEEE 754 extended number (AIFF's sample rate). */
function extended(b: Uint8Array, at: number): number {
  const exponent = ((b[at]! & 0x7f) << 8) | b[at + 1]!;
  const mantissa = u64(u32be(b, at + 2), u32be(b, at + 6));
  return mantissa * 2 ** (exponent - 16383 - 63);
}

async function checkAiff(source: ByteSource): Promise<Integrity> {
  const head = await readAt(source, 0, 12);
  const kind = ascii(head, 8, 4);
  if (head.length < 12 || ascii(head, 0, 4) !== 'FORM' || (kind !== 'AIFF' && kind !== 'AIFC')) {
    return unchecked;
  }
  let length: number | undefined;
  let sound: { size: number; have: number } | undefined;
  let whole: Integrity | undefined;
  for await (const { id, size, body, bytes: chunk } of chunksOf(source, 'be', 18)) {
    if (whole) {
      const after = cutAfterAudio(whole, id, body + size, source.size);
      if (after) return after;
      continue;
    }
    if (id === 'COMM' && chunk.length >= 26) {
      const rate = extended(chunk, 8 + 8);
      if (rate > 0) length = u32be(chunk, 8 + 2) / rate;
    }
    if (id === 'SSND') sound = { size, have: source.size - body };
    // COMM may come after SSND: the verdict waits for both.
    if (length !== undefined && sound) {
      if (sound.size > sound.have) {
        const { size: all, have } = sound;
        return cut((length * have) / all, length, 'the sound data chunk is longer than the file');
      }
      // Whole: the chunks after (tags) are checked too.
      whole = { state: 'complete', duration: length };
    }
  }
  if (whole) return whole;
  // The file ended before its format chunk: the sound was cut off from what it is.
  if (sound && length === undefined && sound.size > sound.have) {
    return cut(
      undefined,
      undefined,
      'the file ends before its COMM chunk, which says what its sound is',
    );
  }
  return unchecked;
}

// ---- MP4 ----

/** The boxes in `b` between `from` and `to` (their ends may pass `to` when the data is cut). */
function boxesIn(b: Uint8Array, from: number, to: number, offset = 0): Box[] {
  const boxes: Box[] = [];
  let p = from;
  while (p + 8 <= to) {
    let size = u32be(b, p);
    let body = p + 8;
    if (size === 1) {
      size = u64(u32be(b, p + 8), u32be(b, p + 12));
      body += 8;
    } else if (size === 0) size = to - p;
    if (size < 8) break;
    boxes.push({
      type: ascii(b, p + 4, 4),
      start: p + offset,
      body: body + offset,
      end: p + size + offset,
    });
    p += size;
  }
  return boxes;
}

const child = (b: Uint8Array, box: Box | undefined, type: string) =>
  box ? boxesIn(b, box.body, Math.min(box.end, b.length)).find((c) => c.type === type) : undefined;

/** Where a track's samples are and how long each lasts, from its sample table. */
function sampleTable(b: Uint8Array, trak: Box) {
  const mdia = child(b, trak, 'mdia');
  const hdlr = child(b, mdia, 'hdlr');
  if (!hdlr || ascii(b, hdlr.body + 8, 4) !== 'soun') return null;
  const mdhd = child(b, mdia, 'mdhd');
  const stbl = child(b, child(b, mdia, 'minf'), 'stbl');
  if (!mdhd || !stbl) return null;
  const v1 = b[mdhd.body] === 1;
  const timescale = u32be(b, mdhd.body + (v1 ? 20 : 12));
  const stsz = child(b, stbl, 'stsz');
  const stsc = child(b, stbl, 'stsc');
  const stco = child(b, stbl, 'stco') ?? child(b, stbl, 'co64');
  const stts = child(b, stbl, 'stts');
  if (!timescale || !stsz || !stsc || !stco || !stts) return null;
  const fixed = u32be(b, stsz.body + 4);
  const count = u32be(b, stsz.body + 8);
  const sizeOf = (i: number) => fixed || u32be(b, stsz.body + 12 + 4 * i);
  const chunks = u32be(b, stco.body + 4);
  const wide = stco.type === 'co64';
  const offsetOf = (i: number) =>
    wide
      ? u64(u32be(b, stco.body + 8 + 8 * i), u32be(b, stco.body + 12 + 8 * i))
      : u32be(b, stco.body + 8 + 4 * i);
  const runs = Array.from({ length: u32be(b, stsc.body + 4) }, (_, i) => ({
    first: u32be(b, stsc.body + 8 + 12 * i),
    perChunk: u32be(b, stsc.body + 12 + 12 * i),
  }));
  const deltas = Array.from({ length: u32be(b, stts.body + 4) }, (_, i) => ({
    count: u32be(b, stts.body + 8 + 8 * i),
    delta: u32be(b, stts.body + 12 + 8 * i),
  }));
  return { timescale, count, sizeOf, chunks, offsetOf, runs, deltas };
}

/** Seconds of the first `samples` samples. */
function timeOf(deltas: { count: number; delta: number }[], samples: number, timescale: number) {
  let left = samples;
  let units = 0;
  for (const d of deltas) {
    const n = Math.min(left, d.count);
    units += n * d.delta;
    left -= n;
    if (left === 0) break;
  }
  return units / timescale;
}

async function checkMp4(source: ByteSource): Promise<Integrity> {
  const top = await topLevelBoxes(source);
  const moov = top.find((b) => b.type === 'moov');
  // Cut inside its audio data before its index (the moov box written last): nothing plays.
  if (!moov && top.some((b) => b.type === 'mdat' && b.end > source.size)) {
    return cut(undefined, undefined, 'it ends inside its audio data, before its index (moov)');
  }
  // Audio data and no index at all (zeros where it was): nothing can play it.
  if (!moov && top.some((b) => b.type === 'mdat')) {
    return cut(undefined, undefined, 'its index (moov), written after its audio, is missing');
  }
  // An index cut by more than a few bytes (a writer's rounding) lost the end of its tables.
  if (moov && moov.end - source.size > 1024) {
    return cut(undefined, undefined, 'it ends inside its index (moov)');
  }
  if (!moov || top.some((b) => b.type === 'moof') || moov.end > source.size) return unchecked;
  // Zeros after the index, where the samples should be: a download that stopped.
  const zeros = await zeroRunStart(source, moov.end, source.size);
  const end = source.size - zeros >= zeroRunMinimum ? zeros : source.size;
  if (moov.end - moov.start > 64 * 1024 * 1024) return unchecked;
  const b = await readAt(source, moov.start, moov.end - moov.start);
  const moovBox = { type: 'moov', start: 0, body: moov.body - moov.start, end: b.length };
  const traks = boxesIn(b, moovBox.body, b.length).filter((c) => c.type === 'trak');
  for (const trak of traks) {
    const table = sampleTable(b, trak);
    if (!table) continue;
    const length = timeOf(table.deltas, table.count, table.timescale);
    // Walks the samples chunk by chunk: the first one that ends past the file is where it cuts.
    let sample = 0;
    for (let chunk = 0; chunk < table.chunks && sample < table.count; chunk++) {
      const run = [...table.runs].reverse().find((r) => r.first <= chunk + 1);
      let offset = table.offsetOf(chunk);
      for (let k = 0; k < (run?.perChunk ?? 1) && sample < table.count; k++, sample++) {
        offset += table.sizeOf(sample);
        if (offset > end) {
          return cut(
            timeOf(table.deltas, sample, table.timescale),
            length,
            end < source.size
              ? zerosDetail(source.size - end)
              : 'the audio data ends before its index says',
          );
        }
      }
    }
    return { state: 'complete', duration: length };
  }
  return unchecked;
}

// ---- Ogg ----

async function checkOgg(source: ByteSource, rate: number | undefined): Promise<Integrity> {
  const zeros = await zeroRunStart(source, 0, source.size);
  const zeroed = source.size - zeros >= zeroRunMinimum;
  const end = zeroed ? zeros : source.size;
  // Two of the largest pages (65,307 bytes each): a whole one precedes a cut one.
  const tailStart = Math.max(0, end - 2 * 65_307 - 1024);
  const tail = await readAt(source, tailStart, end - tailStart);
  let lastWhole: { granule: number; eos: boolean } | null = null;
  let cutPage = false;
  // Pages start with "OggS": the next "O" is jumped to natively, a whole page at once.
  const next = (from: number) => tail.indexOf(0x4f, from);
  for (let i = next(0); i >= 0 && i + 27 <= tail.length;) {
    const page = oggPageAt(tail, i);
    if (page === null) {
      i = next(i + 1);
      continue;
    }
    const size = page === 'partial' ? Infinity : page.headerSize + page.bodySize;
    if (page === 'partial' || i + size > tail.length) {
      cutPage = true;
      i = next(i + 1);
      continue;
    }
    // A granule position of -1: no packet ends on this page; the one before still holds.
    const granule: number = page.granule ?? lastWhole?.granule ?? 0;
    cutPage = false;
    lastWhole = { granule, eos: page.eos };
    i = next(i + size);
  }
  if (!lastWhole) return unchecked;
  const endsAt = rate ? lastWhole.granule / rate : undefined;
  if (zeroed) return cut(endsAt, undefined, zerosDetail(source.size - end));
  if (cutPage) return cut(endsAt, undefined, 'its last Ogg page is incomplete');
  if (!lastWhole.eos)
    return cut(endsAt, undefined, 'the Ogg stream lacks its last page, the one marked as its end');
  return { state: 'complete', ...(endsAt ? { duration: endsAt } : {}) };
}

// ---- Matroska, WebM ----

/** An EBML variable-length integer at `at`: its value, its length, and whether it is "unknown". */
function vint(b: Uint8Array, at: number, keepMarker: boolean) {
  const first = b[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (at + length > b.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let k = 1; k < length; k++) {
    value = value * 256 + b[at + k]!;
    allOnes &&= b[at + k] === 0xff;
  }
  return { value, length, unknown: allOnes };
}

/**
 * A Matroska file whose Segment, as its header records its size, runs past the end of the file
 * was cut (a Segment of unknown size, as live writers leave it, says nothing). Where it ends is
 * the byte share of the recorded length: an estimate, as Matroska keeps no sample table.
 */
async function checkMatroska(source: ByteSource, duration: number | undefined): Promise<Integrity> {
  const head = await readAt(source, 0, 64);
  const ebml = vint(head, 0, true);
  if (!ebml || ebml.value !== 0x1a45dfa3) return unchecked;
  const headerSize = vint(head, ebml.length, false);
  if (!headerSize || headerSize.unknown) return unchecked;
  const segmentAt = ebml.length + headerSize.length + headerSize.value;
  const segment = await readAt(source, segmentAt, 12);
  const id = vint(segment, 0, true);
  if (!id || id.value !== 0x18538067) return unchecked;
  const size = vint(segment, id.length, false);
  if (!size || size.unknown) return unchecked;
  const body = segmentAt + id.length + size.length;
  const end = body + size.value;
  const at = (position: number) =>
    duration ? (duration * (position - body)) / size.value : undefined;
  if (end - source.size > 1024) {
    return cut(at(source.size), duration, 'the file ends before its Segment, as recorded, does');
  }
  const zeros = await zeroRunStart(source, body, source.size);
  if (source.size - zeros >= zeroRunMinimum) {
    return cut(at(zeros), duration, zerosDetail(source.size - zeros));
  }
  return { state: 'complete' };
}

// ---- ASF (WMA) ----

/** An ASF object's GUID as stored (its first three fields little-endian), in hex. */
const asfHeaderGuid = '3026b2758e66cf11a6d900aa0062ce6c';
const asfFilePropertiesGuid = 'a1dcab8c47a9cf118ee400c00c205365';
const asfDataGuid = '3626b2758e66cf11a6d900aa0062ce6c';
const asfStreamPropertiesGuid = '9107dcb7b7a9cf118ee600c00c205365';
const asfAudioMediaGuid = '409e69f84d5bcf11a8fd00805f5c442b';

const hex = (b: Uint8Array, at: number, length: number) =>
  Array.from(b.subarray(at, at + length), (x) => x.toString(16).padStart(2, '0')).join('');
const u64le = (b: Uint8Array, at: number) => u64(u32le(b, at + 4), u32le(b, at));

/**
 * An ASF file (WMA) records its length in its File Properties object (unless it was written as a
 * broadcast, where the length is not known yet), and its Data object, which follows the header,
 * its own size: the audio is cut short when that object runs past the end of the file. (The
 * file size the header records is no guide: taggers that grow the header leave it stale.)
 */
async function checkAsf(source: ByteSource): Promise<Integrity> {
  const head = await readAt(source, 0, 30);
  if (head.length < 30 || hex(head, 0, 16) !== asfHeaderGuid) return unchecked;
  const headerEnd = u64le(head, 16);
  let length: number | undefined;
  let maxPacket = 0;
  const format: { sampleRate?: number; channels?: number } = {};
  for (let at = 30, i = 0; at + 24 <= headerEnd && i < 100; i++) {
    const object = await readAt(source, at, 104);
    const size = u64le(object, 16);
    if (object.length < 24 || size < 24) return unchecked;
    if (hex(object, 0, 16) === asfFilePropertiesGuid && object.length >= 104) {
      const broadcast = (object[88]! & 1) === 1;
      length = u64le(object, 64) / 1e7 - u64le(object, 80) / 1000;
      maxPacket = u32le(object, 96);
      if (broadcast || length <= 0) return unchecked;
    }
    // An audio stream's WAVEFORMATEX: its channels and sample rate.
    if (
      hex(object, 0, 16) === asfStreamPropertiesGuid &&
      hex(object, 24, 16) === asfAudioMediaGuid
    ) {
      format.channels = object[80]! | (object[81]! << 8);
      format.sampleRate = u32le(object, 82);
    }
    at += size;
  }
  const data = await readAt(source, headerEnd, 24);
  if (length === undefined || data.length < 24 || hex(data, 0, 16) !== asfDataGuid) {
    return unchecked;
  }
  // The packets start after the Data object's 50 bytes of header.
  const packets = headerEnd + 50;
  const dataEnd = headerEnd + u64le(data, 16);
  if (dataEnd <= packets) return unchecked;
  const endsAt = (position: number) =>
    (length * Math.max(0, position - packets)) / (dataEnd - packets);
  if (dataEnd > source.size) {
    return {
      ...cut(endsAt(source.size), length, 'its data object is longer than the file'),
      ...format,
    };
  }
  // Zeros where packets should be: a download that stopped. A packet's own padding is zeros
  // too, so a run counts only past two packets' worth.
  const zeros = await zeroRunStart(source, packets, dataEnd);
  if (dataEnd - zeros >= Math.max(zeroRunMinimum, 2 * maxPacket)) {
    return { ...cut(endsAt(zeros), length, zerosDetail(dataEnd - zeros)), ...format };
  }
  return { state: 'complete', duration: length, ...format };
}

function cut(endsAt: number | undefined, length: number | undefined, detail: string): Integrity {
  return {
    state: 'cut-short',
    detail,
    ...(endsAt !== undefined && Number.isFinite(endsAt) ? { endsAt: Math.max(0, endsAt) } : {}),
    ...(length !== undefined && Number.isFinite(length) ? { length, duration: length } : {}),
  };
}

/**
 * Checks a file whose container music-metadata named. `rate` is the rate of an Ogg stream's
 * granule positions (48 kHz for Opus). A structure too odd to follow is `unchecked`, never a throw.
 */
export async function checkIntegrity(
  source: ByteSource,
  container: string,
  rate?: number,
  /** The length the parser read from the header (Matroska records it there). */
  duration?: number,
): Promise<Integrity> {
  const c = container.toLowerCase();
  try {
    if (c.startsWith('ebml')) return await checkMatroska(source, duration);
    if (c === 'mpeg') return await checkMpeg(source);
    if (c === 'flac') return await checkFlac(source);
    if (c === 'wave' || c === 'rf64') return await checkWave(source);
    if (c.startsWith('aiff')) return await checkAiff(source);
    if (c === 'ogg') return await checkOgg(source, rate);
    if (c.startsWith('asf')) return await checkAsf(source);
    if (c.startsWith('m4a') || /^(isom|iso\d|mp4\d|mp42|qt|3gp)/.test(c)) {
      return await checkMp4(source);
    }
  } catch {
    // A structure that cannot be followed says nothing either way.
  }
  return unchecked;
}
