/**
 * How audio containers lay out their parts, for the checks that follow a file's structure
 * (`integrity.ts`, `audio-payload.ts`): RIFF and AIFF chunks, MP4 top-level boxes and Ogg page
 * headers. Walks stop at the end of the file or after 1,000 parts, never throw on odd sizes.
 * Free of Node APIs: the renderer bundles it.
 */
import type { ByteSource } from './block-tokenizer.js';
import { ascii, readAt, u32be, u32le, u64 } from './bytes.js';

/** One chunk of a RIFF (WAV, RF64) or IFF (AIFF) file. */
export interface Chunk {
  id: string;
  /** The size its header declares (its body may be cut short by the file's end). */
  size: number;
  /** Where its body starts. */
  body: number;
  /** Its 8-byte header followed by up to `peek` bytes of its body. */
  bytes: Uint8Array;
}

/**
 * The chunks of a RIFF (`le`) or IFF (`be`) file from `from` (12: past the RIFF or FORM
 * header), each with `peek` bytes of its body. A chunk of odd size is followed by a pad byte.
 */
export async function* chunksOf(
  source: ByteSource,
  order: 'le' | 'be',
  peek: number,
  from = 12,
): AsyncGenerator<Chunk> {
  let position = from;
  for (let i = 0; i < 1000 && position + 8 <= source.size; i++) {
    const bytes = await readAt(source, position, 8 + peek);
    const size = order === 'le' ? u32le(bytes, 4) : u32be(bytes, 4);
    yield { id: ascii(bytes, 0, 4), size, body: position + 8, bytes };
    position += 8 + size + (size & 1);
  }
}

/** An MP4 box: where it starts, where its content starts and where it ends. */
export interface Box {
  type: string;
  start: number;
  /** Where the box's content starts. */
  body: number;
  end: number;
}

/** The top-level boxes of an MP4 file (the last one's end may pass the file's when it was cut). */
export async function topLevelBoxes(source: ByteSource): Promise<Box[]> {
  const boxes: Box[] = [];
  let position = 0;
  for (let i = 0; i < 1000 && position + 8 <= source.size; i++) {
    const head = await readAt(source, position, 16);
    let size = u32be(head, 0);
    let body = position + 8;
    if (size === 1 && head.length >= 16) {
      size = u64(u32be(head, 8), u32be(head, 12));
      body += 8;
    } else if (size === 0) size = source.size - position;
    if (size < 8) break;
    boxes.push({ type: ascii(head, 4, 4), start: position, body, end: position + size });
    position += size;
  }
  return boxes;
}

/** An Ogg page header. */
export interface OggPage {
  /** The granule position: null when it is -1 (no packet ends on this page). */
  granule: number | null;
  serial: number;
  /** The page ends its logical stream. */
  eos: boolean;
  /** Bytes of the header with its segment table; the body follows. */
  headerSize: number;
  bodySize: number;
}

/**
 * The page whose header starts at `at` in `b`, or null when none does; `partial` when the
 * header starts there but `b` ends before its segment table does.
 */
export function oggPageAt(b: Uint8Array, at: number): OggPage | 'partial' | null {
  if (at + 27 > b.length || b[at] !== 0x4f || ascii(b, at, 4) !== 'OggS' || b[at + 4] !== 0) {
    return null;
  }
  const segments = b[at + 26]!;
  if (at + 27 + segments > b.length) return 'partial';
  let bodySize = 0;
  for (let k = 0; k < segments; k++) bodySize += b[at + 27 + k]!;
  const high = u32le(b, at + 10);
  const low = u32le(b, at + 6);
  return {
    granule: high === 0xffffffff && low === 0xffffffff ? null : u64(high, low),
    serial: u32le(b, at + 14),
    eos: (b[at + 5]! & 4) !== 0,
    headerSize: 27 + segments,
    bodySize,
  };
}
