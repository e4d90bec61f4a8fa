/**
 * A lean reader of MP3 files as encoders and taggers write them (ID3v2 tags, then MPEG audio
 * frames), giving exactly what music-metadata's MPEG parser gives for them. The tags are read by
 * music-metadata's own ID3v2 parser, each over its bytes; the frames are followed as that parser
 * follows them, rule for rule: its sync search over a reused 1 KiB window, the first four frame
 * headers, the Xing, Info and LAME headers (read by its own `readXingHeader`), the CBR rule
 * after four frames and the sizes it works out at the end. Tags after the audio (ID3v1, APEv2),
 * ADTS streams, a frame header it would warn about and a frame shorter than its own header are
 * left to music-metadata (`plain-read.ts`). Free of Node APIs: the renderer bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';
import { EndOfStreamError, fromBuffer } from 'strtok3/core';

// Not exported by the package: how its MPEG parser reads the Xing and LAME headers.
import { readXingHeader } from '../../../node_modules/music-metadata/lib/mpeg/XingTag.js';
import type { ByteSource } from './block-tokenizer.js';
import { readAt } from './bytes.js';
import {
  type Collector,
  noTagsAtTheEnd,
  notPlain,
  readId3Chunk,
  readPlainly,
  setFormat,
  stripNulls,
} from './plain-read.js';

/** Where music-metadata's MPEG parser stops: the end of the file as it meets it. */
class EndOfStream extends Error {}

const versions = [2.5, null, 2, 1] as const;
const layers = [0, 3, 2, 1] as const;

/** kb/s by bitrate index, then by 10 × MPEG version + layer (music-metadata's `bitrate_index`). */
const bitrates: Record<number, Record<number, number>> = {
  1: { 11: 32, 12: 32, 13: 32, 21: 32, 22: 8, 23: 8 },
  2: { 11: 64, 12: 48, 13: 40, 21: 48, 22: 16, 23: 16 },
  3: { 11: 96, 12: 56, 13: 48, 21: 56, 22: 24, 23: 24 },
  4: { 11: 128, 12: 64, 13: 56, 21: 64, 22: 32, 23: 32 },
  5: { 11: 160, 12: 80, 13: 64, 21: 80, 22: 40, 23: 40 },
  6: { 11: 192, 12: 96, 13: 80, 21: 96, 22: 48, 23: 48 },
  7: { 11: 224, 12: 112, 13: 96, 21: 112, 22: 56, 23: 56 },
  8: { 11: 256, 12: 128, 13: 112, 21: 128, 22: 64, 23: 64 },
  9: { 11: 288, 12: 160, 13: 128, 21: 144, 22: 80, 23: 80 },
  10: { 11: 320, 12: 192, 13: 160, 21: 160, 22: 96, 23: 96 },
  11: { 11: 352, 12: 224, 13: 192, 21: 176, 22: 112, 23: 112 },
  12: { 11: 384, 12: 256, 13: 224, 21: 192, 22: 128, 23: 128 },
  13: { 11: 416, 12: 320, 13: 256, 21: 224, 22: 144, 23: 144 },
  14: { 11: 448, 12: 384, 13: 320, 21: 256, 22: 160, 23: 160 },
};

const sampleRates: Record<number, number[]> = {
  1: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  2.5: [11025, 12000, 8000],
};

/** One MPEG audio frame header, as music-metadata's `MpegFrameHeader` reads it. */
interface FrameHeader {
  version: number;
  layer: number;
  channelModeIndex: number;
  padding: boolean;
  crc: boolean;
  bitrate: number;
  samplingRate: number;
  codec: string;
}

/** The header in `b` (4 bytes), or not plain where music-metadata would warn and search on. */
function frameHeader(b: Uint8Array): FrameHeader {
  const versionIndex = (b[1]! >> 3) & 3;
  const layer = layers[(b[1]! >> 1) & 3]!;
  // An ADTS (AAC) stream, or a header music-metadata cannot read: left to it.
  if (versionIndex > 1 && layer === 0) notPlain();
  const version = versions[versionIndex];
  const bitrateIndex = b[2]! >> 4;
  const rateIndex = (b[2]! >> 2) & 3;
  if (version === null || version === undefined || layer === 0) notPlain();
  const kbps =
    bitrateIndex === 0 || bitrateIndex === 15
      ? undefined
      : bitrates[bitrateIndex]?.[10 * Math.floor(version!) + layer];
  if (!kbps || rateIndex === 3) notPlain();
  return {
    version: version!,
    layer,
    channelModeIndex: b[3]! >> 6,
    padding: ((b[2]! >> 1) & 1) === 1,
    crc: (b[1]! & 1) === 0,
    bitrate: kbps! * 1000,
    samplingRate: sampleRates[version!]![rateIndex]!,
    codec: `MPEG ${version} Layer ${layer}`,
  };
}

/** Samples a frame holds (music-metadata's `samplesInFrameTable`). */
const samplesPerFrame = (h: FrameHeader) =>
  [
    [0, 384, 1152, 1152],
    [0, 384, 1152, 576],
  ][h.version === 1 ? 0 : 1]![h.layer]!;

/** Bytes of side information after a frame's header (music-metadata's `calculateSideInfoLength`). */
function sideInfoLength(h: FrameHeader): number {
  if (h.layer !== 3) return 2;
  if (h.channelModeIndex === 3) return h.version === 1 ? 17 : 9;
  return h.version === 1 ? 32 : 17;
}

/**
 * What music-metadata would give for the MP3 file `source` (covers skipped, as the scan asks),
 * or null when the file is not plain enough to be read here.
 */
export function readPlainMp3(source: ByteSource): Promise<IAudioMetadata | null> {
  return readPlainly(source, async (file, metadata) => {
    await noTagsAtTheEnd(file);
    let p = 0;
    // The ID3v2 tags the file starts with, one after another.
    for (;;) {
      const head = await readAt(file, p, 10);
      if (head.length < 10) notPlain();
      // "ID3", as music-metadata decodes it (seven bits a byte).
      if ((head[0]! & 0x7f) !== 0x49 || (head[1]! & 0x7f) !== 0x44 || (head[2]! & 0x7f) !== 0x33) {
        break;
      }
      // A footer (ID3v2.4) is not read by music-metadata's parser: left to it.
      if (head[5]! & 0x10) notPlain();
      // The tag's size as music-metadata reads it (its `UINT32SYNCSAFE`).
      const size = (head[9]! & 0x7f) | (head[8]! << 7) | (head[7]! << 14) | (head[6]! << 21);
      await readId3Chunk(await readAt(file, p, 10 + size), metadata);
      p += 10 + size;
    }
    await readFrames(file, p, metadata);
  });
}

/** The MPEG frames from `start`, as music-metadata's `postId3v2Parse` and `finalize` read them. */
async function readFrames(file: ByteSource, start: number, metadata: Collector): Promise<void> {
  const format = (key: string, value: unknown) => setFormat(metadata, key, value);
  format('lossless', false);
  format('hasAudio', true);
  format('hasVideo', false);
  const size = file.size;
  let p = start;
  const ignore = (n: number) => {
    p = Math.min(size, p + n);
  };
  /** Reads `n` bytes at the position (an end of stream when fewer are left). */
  const take = async (n: number) => {
    const bytes = await readAt(file, p, n);
    if (bytes.length < n) throw new EndOfStream();
    p += n;
    return bytes;
  };
  const window = new Uint8Array(1024);
  const header = new Uint8Array(4);
  const rates: number[] = [];
  let frameCount = 0;
  let syncFrameCount = -1;
  let frameSize = 0;
  let offset = 0;
  let mpegOffset: number | null = null;
  let perFrame: number | null = null;
  let last: FrameHeader | null = null;

  const sync = async () => {
    let got = false;
    for (;;) {
      let bo = 0;
      const read = await readAt(file, p, 1024);
      // The window is reused: bytes past what was read stay from the last read, as there.
      window.set(read);
      if (read.length <= 163) throw new EndOfStream();
      for (;;) {
        if (got && (window[bo]! & 0xe0) === 0xe0) {
          header[0] = 0xff;
          header[1] = window[bo]!;
          ignore(bo);
          if (syncFrameCount === frameCount) {
            frameCount = 0;
            frameSize = 0;
          }
          syncFrameCount = frameCount;
          return;
        }
        got = false;
        bo = window.indexOf(0xff, bo);
        if (bo === -1) {
          if (read.length < window.length) throw new EndOfStream();
          ignore(read.length);
          break;
        }
        ++bo;
        got = true;
      }
    }
  };

  const skipFrameData = (left: number) => {
    if (left < 0) notPlain();
    ignore(left);
  };

  const readXingInfo = async () => {
    const bytes = await readAt(file, p, 256);
    const tokenizer = fromBuffer(bytes);
    let info: Awaited<ReturnType<typeof readXingHeader>>;
    try {
      info = await readXingHeader(tokenizer);
    } catch (error) {
      if (error instanceof EndOfStreamError) throw new EndOfStream();
      throw error;
    }
    p += tokenizer.position;
    offset += tokenizer.position;
    if (info.lame) {
      format('tool', `LAME ${stripNulls(info.lame.version)}`);
      const extended = info.lame.extended;
      if (extended) {
        format('trackPeakLevel', extended.track_peak);
        if (extended.track_gain) format('trackGain', extended.track_gain.adjustment);
        if (extended.album_gain) format('albumGain', extended.album_gain.adjustment);
        format('duration', extended.music_length / 1000);
      }
    }
    if (info.streamSize && last && info.numFrames !== null) {
      format('duration', (info.numFrames * samplesPerFrame(last)) / last.samplingRate);
      return info;
    }
    skipFrameData(frameSize - offset);
    return info;
  };

  const readExtraHeader = async () => {
    const tag = String.fromCharCode(...(await take(4)).map((c) => c & 0x7f));
    offset += 4;
    if (tag === 'Info') {
      format('codecProfile', 'CBR');
      await readXingInfo();
      return;
    }
    if (tag === 'Xing') {
      const info = await readXingInfo();
      if (info.vbrScale !== null)
        format('codecProfile', `V${Math.floor((100 - info.vbrScale) / 10)}`);
      return;
    }
    // A LAME header where music-metadata reads one may be corrupt: left to it.
    if (tag === 'LAME') notPlain();
    skipFrameData(frameSize - offset);
  };

  const skipSideInformation = async () => {
    if (!last) return;
    const length = sideInfoLength(last);
    await take(length);
    offset += length;
    await readExtraHeader();
  };

  /** One frame; true once music-metadata stops reading frames. */
  const readFrame = async (): Promise<boolean> => {
    if (frameCount === 0) mpegOffset = p - 1;
    const rest = await readAt(file, p, 3);
    if (rest.length < 3) throw new EndOfStream();
    header.set(rest, 1);
    const h = frameHeader(header);
    ignore(3);
    format('container', 'MPEG');
    format('codec', h.codec);
    format('lossless', false);
    format('sampleRate', h.samplingRate);
    frameCount++;
    format('numberOfChannels', h.channelModeIndex === 3 ? 1 : 2);
    format('bitrate', h.bitrate);
    const slot = [null, 4, 1, 1][h.layer]!;
    const spf = samplesPerFrame(h);
    frameSize = Math.floor(((spf / 8) * h.bitrate) / h.samplingRate + (h.padding ? slot : 0));
    last = h;
    rates.push(h.bitrate);
    if (frameCount === 1) {
      offset = 4;
      await skipSideInformation();
      return false;
    }
    if (frameCount === 4) {
      if (rates.every((r) => r === rates[0])) {
        perFrame = spf;
        format('codecProfile', 'CBR');
      }
      return true;
    }
    offset = 4;
    if (h.crc) {
      ignore(2);
      offset += 2;
    }
    await skipSideInformation();
    return false;
  };

  try {
    let quit = false;
    while (!quit) {
      await sync();
      quit = await readFrame();
    }
  } catch (error) {
    if (!(error instanceof EndOfStream)) throw error;
  }
  // music-metadata's `finalize`: sizes worked out from the whole file once the frames are read.
  const f = metadata.format;
  if (mpegOffset !== null) {
    const mpegSize = size - mpegOffset;
    if (f.duration && size && f.codecProfile?.[0] === 'V')
      format('bitrate', (mpegSize * 8) / f.duration);
    if (size && f.codecProfile === 'CBR' && perFrame !== null) {
      const samples = Math.round(mpegSize / frameSize) * perFrame;
      format('numberOfSamples', samples);
      if (f.sampleRate && !f.duration) format('duration', samples / f.sampleRate);
    }
  }
}
