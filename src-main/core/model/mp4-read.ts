/**
 * A lean reader of the MP4 files encoders and taggers write for music (one sound track of AAC or
 * ALAC, iTunes tags), giving exactly what music-metadata's MP4 parser gives for them. That parser
 * reads each box and field with a promise of its own: some 800 µs a file in a scan, four times
 * any other format. This one reads the index (moov) once and walks it in memory, following the
 * parser's rules box by box: which boxes hold others, which it reads and which it passes over,
 * and how each value is decoded. The tags go through music-metadata's own collector, so their
 * common names map as they always did. A file it does not read as plainly as that parser would
 * (fragments, chapters, several tracks, unknown value types, anything the parser would warn
 * about or fail on) gives null, and music-metadata reads it. Free of Node APIs: the renderer
 * bundles it.
 */
import type { IAudioMetadata } from 'music-metadata';

// Not exported by the package: the ID3v1 genre names an iTunes `gnre` points into.
import { Genres } from '../../../node_modules/music-metadata/lib/id3v1/ID3v1Parser.js';
import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32be, u64 } from './bytes.js';
import { audioTrackType, type Collector, notPlain, readPlainly, setFormat } from './plain-read.js';

/** Boxes music-metadata reads as lists of boxes (its `Atom.readData`). */
const containers = new Set([
  'moov',
  'udta',
  'mdia',
  'minf',
  'stbl',
  '<id>',
  'ilst',
  'tref',
  'moof',
  'meta',
]);

/** The codecs a sample description names, as music-metadata's `encoderDict` has them. */
const codecs: Record<string, { format: string; lossy: boolean }> = {
  mp4a: { format: 'MPEG-4/AAC', lossy: true },
  alac: { format: 'ALAC', lossy: false },
};

/** How deep boxes may nest in a file read here. */
const maxDepth = 16;

/** The largest box music-metadata reads into memory. */
const maxPayload = 64 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8');

const i16 = (b: Uint8Array, at: number) => ((b[at]! << 24) >> 16) | b[at + 1]!;
const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u24 = (b: Uint8Array, at: number) => (b[at]! << 16) | (b[at + 1]! << 8) | b[at + 2]!;
const i32 = (b: Uint8Array, at: number) => u32be(b, at) | 0;

/** A date in seconds since 1904, as music-metadata builds it. */
const macDate = (seconds: number) => new Date((seconds - 2082844800) * 1000);

/** A 64-bit big-endian integer, exact to 2^53 (larger is not a plain file). */
function u64be(b: Uint8Array, at: number): number {
  const hi = u32be(b, at);
  if (hi >= 2 ** 21) notPlain();
  return u64(hi, u32be(b, at + 4));
}

/** One box of the index, as music-metadata's `Atom` sees it. */
interface Box {
  name: string;
  parent: Box | null;
  /** Where its payload starts and ends in the index's bytes. */
  body: number;
  end: number;
}

interface SoundDescription {
  dataFormat: string;
  description?: { numAudioChannels: number; sampleSize: number; sampleRate: number };
}

interface Track {
  trackId?: number;
  handlerType?: string;
  timeScale?: number;
  duration?: number;
  sounds?: SoundDescription[];
  sampleSizes?: number[];
  hasTimeToSample?: boolean;
}

/** The tags and properties read from the index, before they are handed to the collector. */
interface Found {
  container: string;
  created?: Date;
  modified?: Date;
  tracks: Map<number, Track>;
  tags: { id: string; value: string | number }[];
  hasVideo: boolean;
}

/** Calls `handle` on each box in `b` from `from` to `to` whose payload is not a list of boxes. */
function readBoxes(
  b: Uint8Array,
  from: number,
  to: number,
  parent: Box | null,
  handle: (box: Box) => void,
  depth = 0,
): void {
  // Music nests boxes a few deep; a file nesting them by the thousand is not plain.
  if (depth > maxDepth) notPlain();
  let at = from;
  while (at < to) {
    if (to - at < 8) notPlain();
    let length = u32be(b, at);
    let header = 8;
    if (length === 1) {
      if (to - at < 16) notPlain();
      length = u64be(b, at + 8);
      header = 16;
    } else if (length === 0) length = to - at;
    if (length < header || length > to - at) notPlain();
    const box = { name: ascii(b, at + 4, 4), parent, body: at + header, end: at + length };
    if (box.name === 'meta') {
      if (box.end - box.body < 8) notPlain();
      // A meta box starts with a version and flags unless its first child follows at once.
      const skip = ascii(b, box.body + 4, 4) === 'hdlr' ? 0 : 4;
      readBoxes(b, box.body + skip, box.end, box, handle, depth + 1);
    } else if (containers.has(box.name)) {
      readBoxes(b, box.body, box.end, box, handle, depth + 1);
    } else {
      if (box.end - box.body > maxPayload) notPlain();
      handle(box);
    }
    at = box.end;
  }
}

/** A sample table's entries (stts, stsc, stco, stsz): their count must fill the box exactly. */
function tableEntries(bytes: number, count: number, size: number): void {
  if (bytes !== 0 && bytes !== count * size) notPlain();
}

/** A track's boxes, every one under `trak` read by this handler (as music-metadata does). */
function readTrack(b: Uint8Array, trak: Box, found: Found): void {
  const track: Track = {};
  readBoxes(b, trak.body, trak.end, trak, (box) => {
    const { body, end } = box;
    const length = end - body;
    switch (box.name) {
      case 'tkhd': {
        const version = b[body];
        if (length < 4 || (version === 0 && length < 38) || (version === 1 && length < 50)) {
          notPlain();
        }
        if (version !== 0 && version !== 1) notPlain();
        track.trackId = u32be(b, body + (version === 0 ? 12 : 20));
        break;
      }
      case 'hdlr':
        // Read as music-metadata reads it: what the box holds of those four bytes.
        track.handlerType = utf8.decode(
          b.subarray(Math.min(body + 8, end), Math.min(body + 12, end)),
        );
        if (track.handlerType === 'vide') found.hasVideo = true;
        break;
      case 'mdhd': {
        const version = b[body];
        if (length < 24 || (version !== 0 && version !== 1) || (version === 1 && length < 36)) {
          notPlain();
        }
        track.timeScale = u32be(b, body + (version === 0 ? 12 : 20));
        track.duration = version === 0 ? u32be(b, body + 16) : u64be(b, body + 24);
        break;
      }
      case 'stts':
        if (length < 8) notPlain();
        tableEntries(length - 8, i32(b, body + 4), 8);
        track.hasTimeToSample = length > 8;
        break;
      case 'stsc':
        if (length < 8) notPlain();
        tableEntries(length - 8, i32(b, body + 4), 12);
        break;
      case 'stco':
        if (length < 8) notPlain();
        tableEntries(length - 8, i32(b, body + 4), 4);
        break;
      case 'stsz': {
        if (length < 12) notPlain();
        const count = i32(b, body + 8);
        tableEntries(length - 12, count, 4);
        const sizes: number[] = [];
        if (length > 12) for (let i = 0; i < count; i++) sizes.push(i32(b, body + 12 + 4 * i));
        track.sampleSizes = sizes;
        break;
      }
      case 'stsd':
        track.sounds = soundDescriptions(b, body, end);
        break;
      case 'chap':
        notPlain();
    }
  });
  // music-metadata registers a track by its header's id (a later track of the same id replaces it).
  if (track.trackId === undefined) notPlain();
  found.tracks.set(track.trackId!, track);
}

/** The sample descriptions of an stsd box, read as music-metadata reads them. */
function soundDescriptions(b: Uint8Array, body: number, end: number): SoundDescription[] {
  if (end - body < 8) notPlain();
  const entries = u32be(b, body + 4);
  const sounds: SoundDescription[] = [];
  let at = body + 8;
  for (let n = 0; n < entries; n++) {
    if (end - at < 4) notPlain();
    const size = u32be(b, at);
    if (size < 16 || size > end - at) notPlain();
    const dataFormat = ascii(b, at + 4, 4);
    if (!codecs[dataFormat]) notPlain();
    const description = at + 16;
    const descriptionLength = size - 16;
    const sound: SoundDescription = { dataFormat };
    // An AudioSampleEntry: version, revision and vendor, then the sound's own fields.
    if (descriptionLength >= 8) {
      const version = i16(b, description);
      if (version !== 0 && version !== 1) notPlain();
      if (descriptionLength < 20) notPlain();
      const v0 = description + 8;
      sound.description = {
        numAudioChannels: i16(b, v0),
        sampleSize: i16(b, v0 + 2),
        sampleRate: u16(b, v0 + 8) + u16(b, v0 + 10) / 10000,
      };
    }
    sounds.push(sound);
    at += size;
  }
  return sounds;
}

/** One item of an ilst box: its data boxes as tags, named by the item and its mean and name. */
function readItem(b: Uint8Array, item: Box, found: Found): void {
  let key = item.name;
  readBoxes(b, item.body, item.end, item, (child) => {
    const { body, end } = child;
    switch (child.name) {
      case 'data': {
        if (end - body < 8 || b[body] !== 0) notPlain();
        const value = b.subarray(body + 8, end);
        const tag = dataValue(key, u24(b, body + 1), value);
        if (tag !== undefined) found.tags.push({ id: key, value: tag });
        break;
      }
      case 'name':
      case 'mean':
      case 'rate':
        if (end - body < 4) notPlain();
        key += `:${utf8.decode(b.subarray(body + 4, end))}`;
        break;
      default:
        notPlain();
    }
  });
}

/** A data box's value as music-metadata decodes it by its well-known type; undefined: none. */
function dataValue(key: string, type: number, value: Uint8Array): string | number | undefined {
  switch (type) {
    case 0:
      if (key === 'trkn' || key === 'disk') {
        if (value.length < 6) notPlain();
        return `${value[3]}/${value[5]}`;
      }
      if (key === 'gnre') {
        if (value.length < 2) notPlain();
        const genre = Genres[value[1]! - 1];
        return genre ?? notPlain();
      }
      if (key === 'rate') return String.fromCharCode(...value.map((c) => c & 0x7f));
      // Other keys with no type: music-metadata adds no tag.
      return undefined;
    case 1:
    case 18:
      return utf8.decode(value);
    case 13:
    case 14:
      // Cover art: skipped, as the scan asks music-metadata to skip it.
      return undefined;
    case 21:
      return integer(value, true);
    case 22:
      return integer(value, false);
    case 65:
      if (value.length < 1) notPlain();
      return value[0];
    case 66:
      if (value.length < 2) notPlain();
      return u16(value, 0);
    case 67:
      if (value.length < 4) notPlain();
      return u32be(value, 0);
    default:
      return notPlain();
  }
}

/** A big-endian integer of 1 to 4 or 8 bytes, as music-metadata's `read_BE_Integer` reads it. */
function integer(value: Uint8Array, signed: boolean): number {
  if (value.length === 8) {
    const bits = (BigInt(u32be(value, 0)) << 32n) | BigInt(u32be(value, 4));
    return Number(signed ? BigInt.asIntN(64, bits) : bits);
  }
  if (value.length < 1 || value.length > 4) notPlain();
  let n = 0;
  for (const byte of value) n = n * 256 + byte;
  const bits = value.length * 8;
  return signed && n >= 2 ** (bits - 1) ? n - 2 ** bits : n;
}

/** The boxes of the index (the payload of the moov box) music-metadata reads, into `found`. */
function readIndex(b: Uint8Array, found: Found): void {
  const moov: Box = { name: 'moov', parent: null, body: 0, end: b.length };
  readBoxes(b, 0, b.length, moov, (box) => {
    const parent = box.parent?.name;
    if (parent === 'ilst') return readItem(b, box, found);
    if (parent === '<id>' || parent === 'moof') notPlain();
    if (parent === 'moov' && box.name === 'trak') return readTrack(b, box, found);
    switch (box.name) {
      case 'mvhd': {
        const length = box.end - box.body;
        if (length < 100) notPlain();
        const v1 = b[box.body] === 1;
        if (v1 && length < 112) notPlain();
        found.created = macDate(v1 ? u64be(b, box.body + 4) : u32be(b, box.body + 4));
        found.modified = macDate(v1 ? u64be(b, box.body + 12) : u32be(b, box.body + 8));
        break;
      }
      // Read by music-metadata outside a track, or as chapters or a date tag: left to it.
      case 'stsd':
      case 'stsz':
      case 'chap':
      case 'date':
      case 'ftyp':
      case 'mdat':
        notPlain();
    }
  });
}

/** The container name music-metadata gives from the ftyp box's brands. */
function brands(b: Uint8Array): string {
  if (b.length < 8 || b.length % 4 !== 0) notPlain();
  const types: string[] = [];
  for (let at = 0; at < b.length; at += 4) {
    if (b.subarray(at, at + 4).some((c) => c >= 0x80)) notPlain();
    const value = ascii(b, at, 4).replace(/\W/g, '');
    if (value.length > 0 && !types.includes(value)) types.push(value);
  }
  return types.join('/');
}

/**
 * What music-metadata would give for the MP4 file `source` (covers skipped, as the scan asks),
 * or null when the file is not plain enough to be read here.
 */
export function readPlainMp4(source: ByteSource): Promise<IAudioMetadata | null> {
  return readPlainly(source, async (file, metadata) => {
    const found = await readTopLevel(file);
    if (!found) notPlain();
    await collect(found!, metadata);
  });
}

/** The top-level boxes: one ftyp first, then one index (moov), media data and free space. */
async function readTopLevel(source: ByteSource): Promise<Found | undefined> {
  let found: Found | undefined;
  let at = 0;
  let first = true;
  while (at < source.size) {
    const head = await readAt(source, at, 16);
    if (head.length < 8) return undefined;
    let length = u32be(head, 0);
    let header = 8;
    if (length === 1 && head.length === 16) {
      length = u64be(head, 8);
      header = 16;
    }
    const name = ascii(head, 4, 4);
    if (length < header || length > source.size - at) return undefined;
    if (first !== (name === 'ftyp')) return undefined;
    first = false;
    if (name === 'ftyp') {
      found = {
        container: brands(await readAt(source, at + header, length - header)),
        tracks: new Map(),
        tags: [],
        hasVideo: false,
      };
    } else if (name === 'moov') {
      if (!found || found.tracks.size > 0 || length - header > maxPayload) return undefined;
      readIndex(await readAt(source, at + header, length - header), found);
      if (found.tracks.size === 0) return undefined;
    } else if (name !== 'mdat' && name !== 'free' && name !== 'skip' && name !== 'wide') {
      return undefined;
    }
    at += length;
  }
  return found?.tracks.size ? found : undefined;
}

/** Whether music-metadata counts a track as sound (`isAudioTrack`). */
function isAudio(track: Track): boolean {
  const first = track.sounds?.[0];
  if (!first) return false;
  if (track.handlerType !== undefined) {
    return track.handlerType === 'audi' || track.handlerType === 'soun';
  }
  return !!first.description && first.description.numAudioChannels > 0;
}

/** Fills `metadata` as music-metadata's MP4 parser would from what was found. */
async function collect(found: Found, metadata: Collector): Promise<void> {
  const tracks = [...found.tracks.values()];
  // Only one plain sound track is read here; chapters, video and the rest go to music-metadata.
  if (tracks.length !== 1) notPlain();
  const track = tracks[0]!;
  if (!track.sounds || track.sounds.length !== 1 || !isAudio(track)) notPlain();
  if (!track.timeScale || !track.sampleSizes) notPlain();
  const sound = track.sounds![0]!;
  const codec = codecs[sound.dataFormat]!;
  const format = (key: string, value: unknown) => setFormat(metadata, key, value);
  format('container', found.container);
  if (found.created) format('creationTime', found.created);
  if (found.modified) format('modificationTime', found.modified);
  for (const tag of found.tags) await metadata.addTag('iTunes', tag.id, tag.value);
  const { description } = sound;
  metadata.addStreamInfo({
    codecName: codec.format,
    ...(description && description.sampleRate > 0
      ? {
          type: audioTrackType,
          audio: {
            samplingFrequency: description.sampleRate,
            bitDepth: description.sampleSize,
            channels: description.numAudioChannels,
          },
        }
      : {}),
  });
  format('codec', codec.format);
  const timeScale = track.timeScale!;
  const duration = track.duration ? track.duration / timeScale : undefined;
  const bytes = track.sampleSizes!.reduce((sum, n) => sum + n, 0);
  if (description) {
    format('sampleRate', description.sampleRate);
    format('bitsPerSample', description.sampleSize);
    format('numberOfChannels', description.numAudioChannels);
  }
  format('lossless', !codec.lossy);
  if (duration) {
    format('duration', duration);
    if (bytes) format('bitrate', (8 * bytes) / duration);
  }
  format('hasAudio', true);
  format('hasVideo', found.hasVideo);
}
