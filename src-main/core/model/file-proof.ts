/**
 * The proof that whoever asks for a file holds its content: SHA-256 over the file's size and its
 * first and last 64 KiB (the whole file when it is smaller than 128 KiB). The renderer computes
 * it from the `File` the user dropped or picked; main computes it again from the disk before it
 * grants the file. A page that only guesses a path, a size and a date cannot produce it. Pure
 * (Web Crypto, present in browsers and in Node): the renderer, the preload and main share it.
 */

/** Bytes read at each end of a file. */
export const PROOF_EDGE_BYTES = 64 * 1024;

/** A proof as it travels: 64 lowercase hex digits. */
export const PROOF_PATTERN = /^[0-9a-f]{64}$/;

/** Reads the bytes from `start` (inclusive) to `end` (exclusive) of the file being proved. */
export type ReadRange = (start: number, end: number) => Promise<Uint8Array>;

/** The byte ranges a proof covers for a file of `size` bytes, in order. */
export function proofRanges(size: number): Array<[start: number, end: number]> {
  if (size <= 2 * PROOF_EDGE_BYTES) return [[0, size]];
  return [
    [0, PROOF_EDGE_BYTES],
    [size - PROOF_EDGE_BYTES, size],
  ];
}

/** The proof of a file of `size` bytes whose ranges `read` returns. */
export async function contentProof(size: number, read: ReadRange): Promise<string> {
  const parts: Uint8Array[] = [];
  for (const [start, end] of proofRanges(size)) parts.push(await read(start, end));
  const message = proofMessage(size, parts);
  const digest = await globalThis.crypto.subtle.digest('SHA-256', message);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const encoder = new TextEncoder();

/**
 * What a proof hashes: a header naming the proof and the size, then the bytes of each of
 * `proofRanges(size)`, in order (`parts`). Main hashes it synchronously on a worker thread
 * (`files/file-inspection.ts`), the page with Web Crypto (`contentProof`).
 */
export function proofMessage(size: number, parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const header = encoder.encode(`courier-file-proof-1 ${size}\n`);
  const ranges = proofRanges(size);
  let length = header.byteLength;
  parts.forEach((part, i) => {
    const [start, end] = ranges[i]!;
    // A short read means the file is not the size it claims: that proves nothing.
    if (part.byteLength !== end - start) throw new Error('The file is shorter than its size.');
    length += part.byteLength;
  });
  if (parts.length !== ranges.length) throw new Error('The file is shorter than its size.');
  const joined = new Uint8Array(length);
  joined.set(header);
  let offset = header.byteLength;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}

/** What a proof reads of a browser `Blob` (a dropped or picked `File`). */
export interface ProvableBlob {
  readonly size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

/** The proof of a browser `Blob` (a dropped or picked `File`). */
export function blobProof(blob: ProvableBlob): Promise<string> {
  return contentProof(blob.size, async (start, end) => {
    // Chromium reads a whole small file about twice as fast as a slice of it.
    const part = start === 0 && end === blob.size ? blob : blob.slice(start, end);
    return new Uint8Array(await part.arrayBuffer());
  });
}
