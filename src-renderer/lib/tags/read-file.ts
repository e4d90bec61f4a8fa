/**
 * Reads one picked or dropped file in the renderer: music-metadata over a Blob tokenizer (what
 * parseBlob does: random access through Blob slices, covers and duration skipped) that also
 * carries the file name, so the parser is chosen by extension as the CLI's parseFile does.
 * Mapped by core/model exactly as the CLI maps it. A bad file becomes findings, never a throw.
 */
import { type IAudioMetadata, parseFromTokenizer } from 'music-metadata';
import { fromBlob } from 'strtok3/core';

import {
  type FileReadResult,
  parsedResult,
  precheckFile,
  readFailure,
} from '../../../src-main/core/model/read-result.js';
import { draftFromMetadata } from '../../../src-main/core/model/tags-to-track.js';

/** Reads `file` whose delivery-relative path is `relativePath` (forward slashes). */
export async function readFileTags(file: Blob, relativePath: string): Promise<FileReadResult> {
  const path = relativePath.normalize('NFC');
  const skipped = precheckFile(path, file.size);
  if (skipped) return skipped;
  try {
    const tokenizer = fromBlob(file, { fileInfo: { path } });
    let meta: IAudioMetadata;
    try {
      meta = await parseFromTokenizer(tokenizer, { skipCovers: true, duration: false });
    } finally {
      await tokenizer.close();
    }
    return parsedResult(path, meta, () => draftFromMetadata(meta, path));
  } catch (error) {
    return readFailure(path, error);
  }
}
