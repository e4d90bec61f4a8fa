import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { blobProof } from '../../../src-main/core/model/file-proof.js';
import { listFiles, readTrackFile, toRelative } from '../../../src-main/core/tags/scan-folder.js';
import { readAndProve, readFileTags } from '../../../src-renderer/lib/tags/read-file.js';
import { missingFixtureTools } from '../../support/audio-fixtures.js';
import { fixtureFolder, nfdName } from './fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`renderer reading needs ${missing.join(', ')}`);
  console.warn(`Skipping the renderer reading tests: missing ${missing.join(', ')}`);
}

/** The fixture folder both readers are checked on, and its files. */
let root: string;
let paths: string[];
beforeAll(async () => {
  if (missing.length > 0) return;
  root = await fixtureFolder();
  paths = await listFiles(root);
});

describe.skipIf(missing.length > 0)('readFileTags() (the renderer tags worker)', () => {
  it('maps every file exactly as the CLI does, from a Blob without a MIME type', async () => {
    for (const path of paths) {
      const blob = new Blob([await readFile(path)]);
      const relativePath = toRelative(root, path);
      expect(await readFileTags(blob, relativePath), relativePath).toEqual(
        await readTrackFile(root, path),
      );
    }
  });

  it('normalises an NFD relative path to NFC', async () => {
    const blob = new Blob([await readFile(join(root, nfdName))], { type: 'audio/flac' });
    const result = await readFileTags(blob, nfdName);
    expect(result.file).toBe('Björk/Café.flac');
    expect(result.draft?.primaryMedia?.value).toBe('Björk/Café.flac');
  });
});

/** A picked file that counts the reads the browser process would serve. */
class CountedFile extends File {
  reads = 0;
  override arrayBuffer(): Promise<ArrayBuffer> {
    this.reads++;
    return super.arrayBuffer();
  }
  override slice(start?: number, end?: number, type?: string): Blob {
    this.reads++;
    return super.slice(start, end, type);
  }
}

describe.skipIf(missing.length > 0)('readAndProve() (tags and the grant proof, one read)', () => {
  it('gives the tags the CLI reads and the proof main checks, reading a small file once', async () => {
    for (const path of paths) {
      const relativePath = toRelative(root, path);
      const file = new CountedFile([await readFile(path)], 'f', {
        lastModified: 1_700_000_000_000,
      });
      const { result, proven } = await readAndProve(file, relativePath);
      expect(result, relativePath).toEqual(await readTrackFile(root, path));
      expect(proven, relativePath).toEqual({
        proof: await blobProof(new Blob([await readFile(path)])),
        size: file.size,
        lastModified: 1_700_000_000_000,
      });
      if (file.size <= 256 * 1024) expect(file.reads, relativePath).toBe(1);
    }
  });

  it('proves a file larger than a block from its two ends, as the grant would', async () => {
    const bytes = new Uint8Array(300 * 1024).map((_, i) => (i * 31) % 251);
    const file = new CountedFile([bytes], 'big.mp3', { lastModified: 5 });
    const { result, proven } = await readAndProve(file, 'Album/big.mp3');
    expect(proven?.proof).toBe(await blobProof(new Blob([bytes])));
    expect(result).toEqual(await readFileTags(new Blob([bytes]), 'Album/big.mp3'));
  });

  it('gives no proof for a file that is shorter than it claims, and says it could not be read', async () => {
    const file = new CountedFile([new Uint8Array(10)], 'gone.flac');
    Object.defineProperty(file, 'size', { value: 20 });
    const { result, proven } = await readAndProve(file, 'gone.flac');
    expect(proven).toBeUndefined();
    expect(result.draft).toBeNull();
    expect(result.findings[0]?.level).toBe('error');
  });
});
