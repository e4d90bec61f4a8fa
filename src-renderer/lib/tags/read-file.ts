/**
 * Reads one picked or dropped file in the renderer: music-metadata (covers and duration skipped)
 * over the block-caching tokenizer, reading the Blob in 256 KiB slices. Each `Blob.slice()`
 * read is a round trip to the browser process, and strtok3's own Blob tokenizer makes one per
 * small read (some 30 per file); here a tagged file of a few KiB costs one. The tokenizer
 * carries the file name, so the parser is chosen by extension as in the CLI's scan. Mapped by
 * core/model exactly as the CLI maps it. A bad file becomes findings, never a throw.
 */
import { type ByteSource, bytesSource } from '../../../src-main/core/model/block-tokenizer.js';
import { blobProof, contentProof } from '../../../src-main/core/model/file-proof.js';
import { readAudio } from '../../../src-main/core/model/read-audio.js';
import { type FileReadResult, readFailure } from '../../../src-main/core/model/read-result.js';
import type { ProvenFile } from '../../../src-main/ipc/contract.js';

/** Larger blocks than the CLI's 64 KiB: a Blob read costs far more than a system call. */
const cache = { blockSize: 256 * 1024, maxBlocks: 4 };

/**
 * A Blob of `size` bytes as a `ByteSource`. The size is asked once and passed down: a picked
 * file's metadata can cost a synchronous round trip to the browser process. A read of the whole
 * Blob (a file smaller than a block) skips `slice()`, which registers a new Blob there.
 */
function blobSource(blob: Blob, size: number): ByteSource {
  return {
    size,
    async read(target, position) {
      const whole = position === 0 && target.length >= size;
      const bytes = new Uint8Array(
        await (whole ? blob : blob.slice(position, position + target.length)).arrayBuffer(),
      );
      target.set(bytes);
      return bytes.length;
    },
  };
}

/** Reads `file` whose delivery-relative path is `relativePath` (forward slashes). */
export function readFileTags(file: Blob, relativePath: string): Promise<FileReadResult> {
  return readFrom(file, blobSource(file, file.size), relativePath);
}

function readFrom(file: Blob, source: ByteSource, relativePath: string): Promise<FileReadResult> {
  return readAudio(source, relativePath.normalize('NFC'), {
    cache,
    ...(file.type ? { mimeType: file.type } : {}),
  });
}

/**
 * Reads `file`'s tags and its content proof (`file-proof.ts`) for the grant: a file no larger
 * than a block is read from the browser process once, for both; a larger one is read as the
 * proof reads it (its two ends) and as the tags need it. `proven` is absent when the file could
 * not be read (the grant then tries, and says why).
 */
export async function readAndProve(
  file: File,
  relativePath: string,
): Promise<{ result: FileReadResult; proven?: ProvenFile }> {
  let size: number;
  let lastModified: number;
  let bytes: Uint8Array | undefined;
  let proof: string;
  try {
    size = file.size;
    lastModified = file.lastModified;
    if (size <= cache.blockSize) {
      bytes = new Uint8Array(await file.arrayBuffer());
      const whole = bytes;
      proof = await contentProof(size, async (start, end) => whole.subarray(start, end));
    } else proof = await blobProof(file);
  } catch (error) {
    return { result: readFailure(relativePath.normalize('NFC'), error) };
  }
  const source = bytes ? bytesSource(bytes) : blobSource(file, size);
  return {
    result: await readFrom(file, source, relativePath),
    proven: { proof, size, lastModified },
  };
}
