/**
 * Reading the fixed-layout fields of audio containers: bytes at a position of a `ByteSource`,
 * four-character codes and big- and little-endian integers. Shared by the checks that follow a
 * file's structure (`integrity.ts`, `audio-payload.ts`). Free of Node APIs: the renderer bundles it.
 */
import type { ByteSource } from './block-tokenizer.js';

/**
 * Reads up to `length` bytes at `position` (fewer at the end of the source). The bytes may be
 * the source's own (`ByteSource.bytesAt`): read them, never write them.
 */
export function readAt(source: ByteSource, position: number, length: number): Promise<Uint8Array> {
  return source.bytesAt ? source.bytesAt(position, length) : copyAt(source, position, length);
}

async function copyAt(source: ByteSource, position: number, length: number): Promise<Uint8Array> {
  const n = Math.max(0, Math.min(length, source.size - position));
  const buffer = new Uint8Array(n);
  if (n === 0) return buffer;
  const got = await source.read(buffer, position);
  return buffer.subarray(0, got);
}

/**
 * `length` bytes at `at` as Latin-1 text (chunk and box names, magic numbers); fewer where `b`
 * ends. Built without spreading a typed array, which costs a scan microseconds each time.
 */
export function ascii(b: Uint8Array, at: number, length: number): string {
  const end = Math.min(at + length, b.length);
  if (end - at === 4) return String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
  let text = '';
  for (let i = at; i < end; i++) text += String.fromCharCode(b[i]!);
  return text;
}
/** An unsigned 16-bit big-endian integer. */
export const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
/** An unsigned 32-bit big-endian integer. */
export const u32be = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
/** An unsigned 32-bit little-endian integer. */
export const u32le = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
/** A 64-bit integer from its two 32-bit halves (exact up to 2^53). */
export const u64 = (hi: number, lo: number) => hi * 2 ** 32 + lo;
