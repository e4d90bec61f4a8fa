/**
 * A random-access tokenizer over a file that reads it in 64 KiB blocks and keeps a few, so that
 * music-metadata's many small reads (10-byte frame headers, MP4 atoms) cost one system call per
 * block instead of one each. Large reads (cover art, when not skipped) bypass the cache.
 */
import { type FileHandle, open } from 'node:fs/promises';

import { AbstractTokenizer, EndOfStreamError, type IReadChunkOptions } from 'strtok3';

const blockSize = 64 * 1024;
const maxBlocks = 8;

/** The block-caching tokenizer; create it with `openCachedFile`. */
export class CachedFileTokenizer extends AbstractTokenizer {
  readonly fileInfo: { path: string; size: number };
  private readonly blocks = new Map<number, Uint8Array>();

  private constructor(
    private readonly handle: FileHandle,
    path: string,
    size: number,
  ) {
    super();
    this.fileInfo = { path, size };
  }

  /** Opens `path` for parsing; the caller must close the tokenizer. */
  static async open(path: string): Promise<CachedFileTokenizer> {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      return new CachedFileTokenizer(handle, path, size);
    } catch (error) {
      await handle.close();
      throw error;
    }
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
    if (available > 2 * blockSize) {
      const { bytesRead } = await this.handle.read(target, 0, available, norm.position);
      return bytesRead;
    }
    let done = 0;
    while (done < available) {
      const at = norm.position + done;
      const index = Math.floor(at / blockSize);
      const block = await this.block(index);
      const offset = at - index * blockSize;
      const n = Math.min(available - done, block.length - offset);
      if (n <= 0) break;
      target.set(block.subarray(offset, offset + n), done);
      done += n;
    }
    return done;
  }

  private async block(index: number): Promise<Uint8Array> {
    const cached = this.blocks.get(index);
    if (cached) return cached;
    const start = index * blockSize;
    const length = Math.min(blockSize, this.fileInfo.size - start);
    const buffer = new Uint8Array(Math.max(0, length));
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(buffer, filled, length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const block = buffer.subarray(0, filled);
    if (this.blocks.size >= maxBlocks) this.blocks.delete(this.blocks.keys().next().value!);
    this.blocks.set(index, block);
    return block;
  }

  protected override async closeOnce(): Promise<void> {
    await this.handle.close();
    await super.closeOnce();
  }
}
