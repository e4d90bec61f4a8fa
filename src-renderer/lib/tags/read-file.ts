/**
 * Reads one picked or dropped file in the renderer: music-metadata (covers and duration skipped)
 * over the block-caching tokenizer, reading the Blob in 256 KiB slices. Each `Blob.slice()`
 * read is a round trip to the browser process, and strtok3's own Blob tokenizer makes one per
 * small read (some 30 per file); here a tagged file of a few KiB costs one. The tokenizer
 * carries the file name, so the parser is chosen by extension as in the CLI's scan. Mapped by
 * core/model exactly as the CLI maps it. A bad file becomes findings, never a throw.
 */
import type { ByteSource } from '../../../src-main/core/model/block-tokenizer.js';
import { readAudio } from '../../../src-main/core/model/read-audio.js';
import type { FileReadResult } from '../../../src-main/core/model/read-result.js';

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
  const size = file.size;
  return readAudio(blobSource(file, size), relativePath.normalize('NFC'), {
    cache,
    ...(file.type ? { mimeType: file.type } : {}),
  });
}
