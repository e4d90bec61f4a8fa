/**
 * A random-access tokenizer that reads its source in blocks and keeps the last few, so that
 * music-metadata's many small reads (10-byte frame headers, MP4 atoms: some 30 per file) cost
 * one read of the source per block instead of one each. Large reads (cover art, when not
 * skipped) bypass the cache. The source is whatever reads bytes at a position: a file handle in
 * the CLI's scan (`core/tags/cached-file-tokenizer.ts`), a Blob in the renderer's tags workers
 * (`src-renderer/lib/tags/read-file.ts`), where each read is a round trip to the browser process.
 * Free of Node APIs: the renderer bundles it.
 */
import {
  AbstractTokenizer,
  EndOfStreamError,
  type IFileInfo,
  type IReadChunkOptions,
} from 'strtok3/core';

/** Random access to the bytes of one file. */
export interface ByteSource {
  readonly size: number;
  /** Fills `target` from `position`, fully unless the source ends first; returns the count. */
  read(target: Uint8Array, position: number): Promise<number>;
  /** Releases the source (a file handle); called once, when the tokenizer is closed. */
  close?(): Promise<void>;
  /**
   * Up to `length` bytes at `position` (fewer at the end of the source), where the source can
   * give them without a copy: the bytes may be its own, to be read and never written.
   */
  bytesAt?(position: number, length: number): Promise<Uint8Array>;
}

/** Bytes already in memory as a `ByteSource` (a file read whole once, for several uses). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    async read(target, position) {
      const part = bytes.subarray(position, position + target.length);
      target.set(part);
      return part.length;
    },
  };
}

/** How the source is read: block size in bytes, and how many blocks are kept. */
export interface BlockCacheOptions {
  blockSize: number;
  maxBlocks: number;
}

/** The block-caching tokenizer over a `ByteSource`; `fileInfo.path` picks the parser. */
export class BlockTokenizer extends AbstractTokenizer {
  readonly fileInfo: IFileInfo & { size: number };
  readonly #source: ByteSource;
  readonly #cache: BlockCacheOptions;
  readonly #blocks = new Map<number, Uint8Array>();

  constructor(source: ByteSource, fileInfo: IFileInfo, cache: BlockCacheOptions) {
    super();
    this.#source = source;
    this.#cache = cache;
    this.fileInfo = { ...fileInfo, size: source.size };
  }

  supportsRandomAccess(): boolean {
    return true;
  }

  setPosition(position: number): void {
    this.validateLength(position, 'position');
    this.position = position;
  }

  async readBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const norm = this.normalizeOptions(target, options);
    const bytesRead = await this.peekBuffer(target, norm);
    this.position = norm.position + bytesRead;
    return bytesRead;
  }

  async peekBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const norm = this.normalizeOptions(target, options);
    const available = Math.max(0, Math.min(this.fileInfo.size - norm.position, norm.length));
    if (!norm.mayBeLess && available < norm.length) throw new EndOfStreamError();
    const { blockSize } = this.#cache;
    if (available > 2 * blockSize) {
      return this.#source.read(target.subarray(0, available), norm.position);
    }
    let done = 0;
    while (done < available) {
      const at = norm.position + done;
      const index = Math.floor(at / blockSize);
      const block = await this.#block(index);
      const offset = at - index * blockSize;
      const n = Math.min(available - done, block.length - offset);
      if (n <= 0) break;
      target.set(block.subarray(offset, offset + n), done);
      done += n;
    }
    return done;
  }

  /**
   * Random access for the checks that read a file's structure after parsing (`integrity.ts`):
   * fills `target` from `position` through the same cache, whatever the tokenizer's position.
   */
  readAt(target: Uint8Array, position: number): Promise<number> {
    return this.peekBuffer(target, { position, mayBeLess: true });
  }

  /**
   * `bytesAt` for the readers that follow a file's structure through this cache (`bytes.ts`'s
   * `readAt`): a view into a cached block when the bytes lie in one, which is nearly always (a
   * box header, a page, a tag), else a copy. Some 14 such reads a file, each a fresh buffer
   * filled through `peekBuffer`, cost a scan more than music-metadata's own reads.
   */
  async bytesAt(position: number, length: number): Promise<Uint8Array> {
    const n = Math.max(0, Math.min(length, this.fileInfo.size - position));
    if (n === 0) return new Uint8Array(0);
    const { blockSize } = this.#cache;
    const index = Math.floor(position / blockSize);
    const offset = position - index * blockSize;
    if (position >= 0 && offset + n <= blockSize) {
      const block = this.#blocks.get(index) ?? (await this.#block(index));
      if (offset + n <= block.length) return block.subarray(offset, offset + n);
    }
    const target = new Uint8Array(n);
    return target.subarray(0, await this.readAt(target, position));
  }

  async #block(index: number): Promise<Uint8Array> {
    const cached = this.#blocks.get(index);
    if (cached) return cached;
    const { blockSize, maxBlocks } = this.#cache;
    const start = index * blockSize;
    const buffer = new Uint8Array(Math.max(0, Math.min(blockSize, this.fileInfo.size - start)));
    const block = buffer.subarray(0, await this.#source.read(buffer, start));
    if (this.#blocks.size >= maxBlocks) this.#blocks.delete(this.#blocks.keys().next().value!);
    this.#blocks.set(index, block);
    return block;
  }

  protected override async closeOnce(): Promise<void> {
    this.#blocks.clear();
    await this.#source.close?.();
    await super.closeOnce();
  }
}
