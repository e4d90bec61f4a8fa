/**
 * Reads picked or dropped files in the renderer: music-metadata (covers and duration skipped)
 * over the block-caching tokenizer, reading Blobs in 256 KiB blocks. Each Blob read is a round
 * trip to the browser process, which costs it and this thread far more than the bytes do, so
 * the files a tags worker is handed come as one Blob and are read together (`readGroup`). The
 * tokenizer carries the file name, so the parser is chosen by extension as in the CLI's scan.
 * Mapped by core/model exactly as the CLI maps it. A bad file becomes findings, never a throw.
 */
import { type ByteSource, bytesSource } from '../../../src-main/core/model/block-tokenizer.js';
import { contentProof, PROOF_EDGE_BYTES } from '../../../src-main/core/model/file-proof.js';
import { readAudio } from '../../../src-main/core/model/read-audio.js';
import { type FileReadResult, readFailure } from '../../../src-main/core/model/read-result.js';
import type { ProvenFile } from '../../../src-main/ipc/contract.js';

/** Larger blocks than the CLI's 64 KiB: a Blob read costs far more than a system call. */
const cache = { blockSize: 256 * 1024, maxBlocks: 4 };

/** A file of a group, in the order the group's Blob holds them end to end. */
export interface GroupedFile {
  relativePath: string;
  size: number;
  lastModified: number;
  /** The MIME type the browser gave the file ('' when none). */
  type: string;
  /** Also compute its content proof (`file-proof.ts`), for the grant. */
  prove?: boolean;
}

/** What reading a file gives: its tags, and its proof when asked and the file could be read. */
export interface FileRead {
  result: FileReadResult;
  proven?: ProvenFile;
}

/** Reads `file` whose delivery-relative path is `relativePath` (forward slashes). */
export async function readFileTags(file: Blob, relativePath: string): Promise<FileReadResult> {
  return (await readOne(file, relativePath, false)).result;
}

/**
 * Reads `file`'s tags and its content proof for the grant, from one read of the browser process
 * when the file is no larger than a block, else from its two ends and what the tags need.
 * `proven` is absent when the file could not be read (the grant then tries, and says why).
 */
export function readAndProve(file: File, relativePath: string): Promise<FileRead> {
  return readOne(file, relativePath, true);
}

async function readOne(file: Blob, relativePath: string, prove: boolean): Promise<FileRead> {
  let grouped: GroupedFile;
  try {
    // A picked file's size and date can cost a round trip to the browser process, and fail.
    const lastModified = file instanceof File ? file.lastModified : 0;
    grouped = { relativePath, size: file.size, lastModified, type: file.type, prove };
  } catch (error) {
    return { result: readFailure(relativePath.normalize('NFC'), error) };
  }
  let read: FileRead | undefined;
  await readGroup(file, [grouped], (_, done) => (read = done));
  return read!;
}

/**
 * Reads files that lie end to end in one Blob (`new Blob(files)`, made by the worker). One read
 * from the browser process brings every file no larger than a block whole, and every larger
 * one's first block and last 64 KiB: all its proof needs, and mostly all its tags need; any
 * other part is read when asked. When that one read fails (a file changed or gone since it was
 * picked), each file is read alone, so only that one gets the error. `onRead` gets each file's
 * index and what was read, as each is done.
 */
export async function readGroup(
  group: Blob,
  files: readonly GroupedFile[],
  onRead: (index: number, read: FileRead) => void,
): Promise<void> {
  const starts: number[] = [];
  const parts: Array<[start: number, end: number]> = [];
  let offset = 0;
  for (const file of files) {
    starts.push(offset);
    for (const [start, end] of prefetchRanges(file.size)) {
      // Adjacent parts are read as one: every slice is a Blob the browser process registers.
      const last = parts.at(-1);
      if (last && last[1] === offset + start) last[1] = offset + end;
      else parts.push([offset + start, offset + end]);
    }
    offset += file.size;
  }
  const wanted = parts.reduce((total, [start, end]) => total + end - start, 0);
  let fetched: Uint8Array | null = null;
  try {
    // A group of small files is read whole, without slicing: Chromium reads it faster.
    const whole = parts.length === 1 && parts[0]![0] === 0 && parts[0]![1] === group.size;
    const bytes = await (
      whole ? group : new Blob(parts.map(([start, end]) => group.slice(start, end)))
    ).arrayBuffer();
    // Shorter than the sizes say: some file shrank. Each is read alone, and that one fails.
    if (bytes.byteLength === wanted) fetched = new Uint8Array(bytes);
  } catch {
    fetched = null;
  }
  let at = 0;
  const sources = files.map((file, i) => {
    const alone = readOnce(groupSlice(group, starts[i]!, file, files.length === 1));
    if (!fetched) return alone;
    const held = prefetchRanges(file.size).map(([start, end]) => {
      const bytes = fetched.subarray(at, at + end - start);
      at += end - start;
      return { start, bytes };
    });
    return heldSource(held, alone);
  });
  await Promise.all(
    files.map(async (file, i) => onRead(i, await readAndProveFrom(sources[i]!, file))),
  );
}

/**
 * What `readGroup` reads of a file of `size` bytes up front: all of it when that is little more
 * than a block, else its first block and its last 64 KiB widened to whole blocks (the blocks the
 * tokenizer reads there: tags and integrity checks at the end, the proof's last bytes).
 */
function prefetchRanges(size: number): Array<[start: number, end: number]> {
  const { blockSize } = cache;
  if (size <= blockSize + PROOF_EDGE_BYTES) return [[0, size]];
  const tail = Math.max(blockSize, Math.floor((size - PROOF_EDGE_BYTES) / blockSize) * blockSize);
  return [
    [0, blockSize],
    [tail, size],
  ];
}

async function readAndProveFrom(source: ByteSource, file: GroupedFile): Promise<FileRead> {
  const relativePath = file.relativePath.normalize('NFC');
  let proof: string | undefined;
  if (file.prove) {
    try {
      proof = await contentProof(file.size, (start, end) => readRange(source, start, end));
    } catch (error) {
      return { result: readFailure(relativePath, error) };
    }
  }
  const result = await readAudio(source, relativePath, {
    cache,
    ...(file.type ? { mimeType: file.type } : {}),
  });
  if (proof === undefined) return { result };
  return { result, proven: { proof, size: file.size, lastModified: file.lastModified } };
}

async function readRange(source: ByteSource, start: number, end: number): Promise<Uint8Array> {
  const target = new Uint8Array(end - start);
  return target.subarray(0, await source.read(target, start));
}

/**
 * One file of a group as a `ByteSource`, its Blob sliced only when first read (a lone file is
 * the group itself). A read of the whole Blob skips `slice()`, which registers a new Blob there.
 */
function groupSlice(group: Blob, start: number, file: GroupedFile, alone: boolean): ByteSource {
  let blob: Blob | undefined;
  return {
    size: file.size,
    async read(target, position) {
      blob ??= alone ? group : group.slice(start, start + file.size, file.type);
      const whole = position === 0 && target.length >= file.size;
      const bytes = new Uint8Array(
        await (whole ? blob : blob.slice(position, position + target.length)).arrayBuffer(),
      );
      target.set(bytes.subarray(0, target.length));
      return Math.min(bytes.length, target.length);
    },
  };
}

/** A file no larger than a block read whole at its first read, its proof and tags sharing it. */
function readOnce(source: ByteSource): ByteSource {
  if (source.size > cache.blockSize) return source;
  let whole: Promise<ByteSource> | undefined;
  return {
    size: source.size,
    async read(target, position) {
      whole ??= readRange(source, 0, source.size).then(bytesSource);
      return (await whole).read(target, position);
    },
  };
}

/** `source` with some ranges already in memory: a read inside one of them is served from it. */
function heldSource(
  held: ReadonlyArray<{ start: number; bytes: Uint8Array }>,
  source: ByteSource,
): ByteSource {
  return {
    size: source.size,
    async read(target, position) {
      const end = Math.min(position + target.length, source.size);
      const range = held.find((h) => position >= h.start && end <= h.start + h.bytes.length);
      if (!range) return source.read(target, position);
      return bytesSource(range.bytes).read(target, position - range.start);
    },
  };
}
