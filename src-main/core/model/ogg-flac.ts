/**
 * The Vorbis comment of FLAC inside Ogg, which music-metadata leaves unread: the stream's
 * header packets are FLAC metadata blocks (after the "\x7FFLAC" mapping header), and block type
 * 4 holds the comment, as in a native FLAC file. Read from the first pages only. Free of Node
 * APIs: the renderer bundles it.
 */
import type { ByteSource } from './block-tokenizer.js';
import { u32le } from './bytes.js';

/** One comment, as music-metadata names Vorbis tags (the key upper-cased). */
export interface VorbisComment {
  id: string;
  value: string;
}

const utf8 = new TextDecoder('utf-8');

/** The header packets of the first logical stream in `bytes` (pages read in order). */
function headerPackets(bytes: Uint8Array, max: number): Uint8Array[] {
  const packets: Uint8Array[] = [];
  let current: number[] = [];
  let p = 0;
  while (p + 27 <= bytes.length && packets.length < max) {
    if (String.fromCharCode(...bytes.subarray(p, p + 4)) !== 'OggS') break;
    const segments = bytes[p + 26]!;
    let body = p + 27 + segments;
    for (let s = 0; s < segments; s++) {
      const lace = bytes[p + 27 + s]!;
      for (let i = 0; i < lace && body + i < bytes.length; i++) current.push(bytes[body + i]!);
      body += lace;
      if (lace < 255) {
        packets.push(Uint8Array.from(current));
        current = [];
      }
    }
    p = body;
  }
  return packets;
}

/** The comments of an Ogg FLAC stream, or [] when there are none (or it is not Ogg FLAC). */
export async function oggFlacComments(source: ByteSource): Promise<VorbisComment[]> {
  const head = new Uint8Array(Math.min(source.size, 256 * 1024));
  const bytes = head.subarray(0, await source.read(head, 0));
  const packets = headerPackets(bytes, 16);
  const first = packets[0];
  if (!first || first[0] !== 0x7f || String.fromCharCode(...first.subarray(1, 5)) !== 'FLAC') {
    return [];
  }
  for (const packet of packets.slice(1)) {
    if ((packet[0]! & 0x7f) !== 4 || packet.length < 12) continue;
    return commentsOf(packet);
  }
  return [];
}

/**
 * The comments of a comment block (`packet`, from its 4-byte block header), as far as its sizes
 * stay inside it: a damaged block gives the comments before the damage, never an error, since
 * the audio after it still plays.
 */
function commentsOf(packet: Uint8Array): VorbisComment[] {
  const comments: VorbisComment[] = [];
  // The vendor string's length, the vendor string, then the count of comments.
  let at = 8 + u32le(packet, 4);
  if (at + 4 > packet.length) return comments;
  const count = u32le(packet, at);
  at += 4;
  for (let i = 0; i < count && at + 4 <= packet.length; i++) {
    const end = at + 4 + u32le(packet, at);
    if (end > packet.length) break;
    const text = utf8.decode(packet.subarray(at + 4, end));
    at = end;
    const eq = text.indexOf('=');
    if (eq > 0) comments.push({ id: text.slice(0, eq).toUpperCase(), value: text.slice(eq + 1) });
  }
  return comments;
}
