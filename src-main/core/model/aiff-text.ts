/**
 * AIFF's own text chunks (NAME, AUTH, "(c) ", ANNO), decoded as writers wrote them: the format
 * says ASCII, writers put UTF-8 or Latin-1 there, and music-metadata reads them as 7-bit ASCII
 * ("Café Crème" became "Cafi Crhme"). Valid UTF-8 is read as UTF-8, anything else as
 * Windows-1252. Free of Node APIs: the renderer bundles it.
 */
import type { ByteSource } from './block-tokenizer.js';

/** The chunks read, as music-metadata names its AIFF tags. */
const textChunks = new Set(['NAME', 'AUTH', '(c) ', 'ANNO']);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('windows-1252');

/** Bytes as text: UTF-8 when they are valid UTF-8, else Windows-1252. */
export function decodeLegacyText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return latin1.decode(bytes);
  }
}

/** The text chunks of an AIFF or AIFF-C file, in file order ([] when it is neither). */
export async function aiffTextChunks(
  source: ByteSource,
): Promise<Array<{ id: string; value: string }>> {
  const read = async (position: number, length: number) => {
    const buffer = new Uint8Array(Math.max(0, Math.min(length, source.size - position)));
    return buffer.subarray(0, await source.read(buffer, position));
  };
  const ascii = (b: Uint8Array, at: number) => String.fromCharCode(...b.subarray(at, at + 4));
  const head = await read(0, 12);
  if (head.length < 12 || ascii(head, 0) !== 'FORM' || !/^AIF[FC]$/.test(ascii(head, 8))) {
    return [];
  }
  const tags: Array<{ id: string; value: string }> = [];
  let position = 12;
  for (let i = 0; i < 1000 && position + 8 <= source.size; i++) {
    const header = await read(position, 8);
    const id = ascii(header, 0);
    const size = new DataView(header.buffer, header.byteOffset, 8).getUint32(4);
    if (textChunks.has(id) && size <= 64 * 1024) {
      const body = await read(position + 8, size);
      let start = 0;
      for (let k = 0; k <= body.length; k++) {
        if (k < body.length && body[k] !== 0) continue;
        const value = decodeLegacyText(body.subarray(start, k)).trim();
        if (value) tags.push({ id, value });
        start = k + 1;
      }
    }
    position += 8 + size + (size & 1);
  }
  return tags;
}
