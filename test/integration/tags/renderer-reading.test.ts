import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { blobProof } from '../../../src-main/core/model/file-proof.js';
import { listFiles, readTrackFile, toRelative } from '../../../src-main/core/tags/scan-folder.js';
import {
  type FileRead,
  readAndProve,
  readFileTags,
  readGroup,
} from '../../../src-renderer/lib/tags/read-file.js';
import { makeLongMp3WithTailTag, missingFixtureTools } from '../../support/audio-fixtures.js';
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

/** A picked file (or a group of them) that counts the reads the browser process would serve. */
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

/**
 * A group whose whole read fails, as Chromium's does when one of its files changed on disk
 * after it was picked; a slice covering `changed` (start, end) fails too, and only those.
 */
class ChangedGroup extends Blob {
  constructor(
    parts: BlobPart[],
    private readonly changed: [number, number],
  ) {
    super(parts);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.reject(new DOMException('The file changed.', 'NotReadableError'));
  }
  override slice(start = 0, end = this.size, type?: string): Blob {
    const [from, to] = this.changed;
    if (start < to && end > from) return new ChangedGroup([super.slice(start, end)], [0, end]);
    return super.slice(start, end, type);
  }
}

describe.skipIf(missing.length > 0)(
  'readGroup() (the files a worker is handed, read together)',
  () => {
    it('reads every file of a group with one read, and its long files by their ends', async () => {
      // Two long files among the fixtures: MP3s of 40 s whose only tag is ID3v1, in their last
      // 128 bytes, so their tags come from what is read of their ends.
      const long = await mkdtemp(join(tmpdir(), 'courier-group-'));
      for (const name of ['Long One.mp3', 'Long Two.mp3']) {
        await makeLongMp3WithTailTag(join(long, name), name);
      }
      const all = [...paths.slice(0, 5), join(long, 'Long One.mp3'), ...paths.slice(5)];
      all.push(join(long, 'Long Two.mp3'));
      const rootOf = (path: string) => (path.startsWith(long) ? long : root);
      const contents = await Promise.all(all.map((path) => readFile(path)));
      const group = new CountedFile(
        contents.map((bytes) => new Uint8Array(bytes)),
        'group',
      );
      const files = all.map((path, i) => ({
        relativePath: toRelative(rootOf(path), path),
        size: contents[i]!.length,
        lastModified: 1_700_000_000_000 + i,
        type: '',
        prove: true,
      }));
      const reads: FileRead[] = [];
      await readGroup(group, files, (i, read) => (reads[i] = read));
      for (const [i, path] of all.entries()) {
        const relativePath = files[i]!.relativePath;
        expect(reads[i]?.result, relativePath).toEqual(await readTrackFile(rootOf(path), path));
        expect(reads[i]?.proven, relativePath).toEqual({
          proof: await blobProof(new Blob([new Uint8Array(contents[i]!)])),
          size: contents[i]!.length,
          lastModified: 1_700_000_000_000 + i,
        });
      }
      // One slice per run of wanted bytes: a long file breaks the run once (between its first
      // block and its end), and no file needed a read of its own.
      expect(reads[5]?.result.draft?.title?.value).toBe('Long One.mp3');
      expect(files.filter((file) => file.size > 320 * 1024)).toHaveLength(2);
      expect(group.reads).toBe(3);
    });

    it('reads a group of small files with one read of the whole group', async () => {
      const small = paths.slice(0, 4);
      const contents = await Promise.all(small.map((path) => readFile(path)));
      expect(contents.every((bytes) => bytes.length <= 256 * 1024)).toBe(true);
      const group = new CountedFile(
        contents.map((bytes) => new Uint8Array(bytes)),
        'group',
      );
      const files = small.map((path, i) => ({
        relativePath: toRelative(root, path),
        size: contents[i]!.length,
        lastModified: 0,
        type: '',
      }));
      const reads: FileRead[] = [];
      await readGroup(group, files, (i, read) => (reads[i] = read));
      expect(group.reads).toBe(1);
      for (const [i, path] of small.entries()) {
        expect(reads[i]?.result).toEqual(await readTrackFile(root, path));
        expect(reads[i]?.proven).toBeUndefined();
      }
    });

    it('when the group cannot be read, reads each file alone: only the changed one fails', async () => {
      const three = paths.slice(0, 3);
      const contents = await Promise.all(three.map((path) => readFile(path)));
      const first = contents[0]!.length;
      const group = new ChangedGroup(
        contents.map((bytes) => new Uint8Array(bytes)),
        [first, first + contents[1]!.length],
      );
      const files = three.map((path, i) => ({
        relativePath: toRelative(root, path),
        size: contents[i]!.length,
        lastModified: 0,
        type: '',
        prove: true,
      }));
      const reads: FileRead[] = [];
      await readGroup(group, files, (i, read) => (reads[i] = read));
      for (const i of [0, 2]) {
        expect(reads[i]?.result).toEqual(await readTrackFile(root, three[i]!));
        expect(reads[i]?.proven?.proof).toBe(
          await blobProof(new Blob([new Uint8Array(contents[i]!)])),
        );
      }
      expect(reads[1]?.proven).toBeUndefined();
      expect(reads[1]?.result.draft).toBeNull();
      expect(reads[1]?.result.findings[0]).toMatchObject({ level: 'error' });
      expect(reads[1]?.result.findings[0]?.message).toMatch(/changed/);
    });
  },
);
