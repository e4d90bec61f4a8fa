/**
 * The text of an ID3v2.3 tag's credit frames as written. music-metadata splits TPE1, TCOM and
 * the like at every "/" and trims the parts, so "Their / They're / There" came back as
 * "Their/They're/There"; the frames are read again here, whole (values split only at NULs, which
 * some writers put between values). The first tag only; an unsynchronised, compressed or
 * encrypted frame is left to music-metadata. Free of Node APIs: the renderer bundles it.
 */
import { decodeLegacyText } from './aiff-text.js';
import type { ByteSource } from './block-tokenizer.js';

const utf16le = new TextDecoder('utf-16le');
const utf16be = new TextDecoder('utf-16be');

/** A text frame's value: its encoding byte, then the text (NUL padding dropped). */
function decodeText(body: Uint8Array): string {
  const text = body.subarray(1);
  switch (body[0]) {
    case 1: {
      // UTF-16 with a byte-order mark.
      const be = text[0] === 0xfe && text[1] === 0xff;
      const bom = (text[0] === 0xff && text[1] === 0xfe) || be ? 2 : 0;
      return (be ? utf16be : utf16le).decode(text.subarray(bom));
    }
    case 2:
      return utf16be.decode(text);
    case 3:
      return new TextDecoder('utf-8').decode(text);
    default:
      return decodeLegacyText(text);
  }
}

/** The values of the frames named in `ids`, by frame id, in file order (empty: none read). */
export async function id3v23TextFrames(
  source: ByteSource,
  ids: ReadonlySet<string>,
): Promise<Map<string, string[]>> {
  const frames = new Map<string, string[]>();
  const head = new Uint8Array(10);
  if ((await source.read(head, 0)) < 10) return frames;
  if (String.fromCharCode(...head.subarray(0, 3)) !== 'ID3' || head[3] !== 3) return frames;
  // Unsynchronisation changes the bytes of every frame: left to music-metadata.
  if (head[5]! & 0x80) return frames;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7);
  const tag = new Uint8Array(
    Math.min(size | (head[9]! & 0x7f), source.size - 10, 16 * 1024 * 1024),
  );
  const got = await source.read(tag, 10);
  const view = new DataView(tag.buffer, 0, got);
  let p = head[5]! & 0x40 ? 4 + view.getUint32(0) : 0;
  while (p + 10 <= got) {
    const id = String.fromCharCode(...tag.subarray(p, p + 4));
    if (!/^[A-Z0-9]{4}$/.test(id)) break;
    const length = view.getUint32(p + 4);
    const flags = tag[p + 9]!;
    const body = tag.subarray(p + 10, p + 10 + length);
    p += 10 + length;
    // Compressed (0x80) or encrypted (0x40) frames are not read here.
    if (!ids.has(id) || flags & 0xc0 || body.length < 2) continue;
    const values = decodeText(body)
      .split('\u0000')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    frames.set(id, [...(frames.get(id) ?? []), ...values]);
  }
  return frames;
}
