import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes a file so that readers only ever see the old or the new content (temp + fsync + rename;
 * `durable: false` leaves out the flushes).
 */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  await writeAtomic(path, 0o600, (handle) => handle.writeFile(content), options);
}

/** How far a write goes to be safe. */
export interface WriteOptions {
  /**
   * Flush the file and its directory entry before resolving (default true). False for a file
   * whose loss in a power cut costs only a check later (an upload's "complete" journal): the
   * rename still means a reader sees the old content or the new, never a mix.
   */
  durable?: boolean;
}

/**
 * Writes a stream to a file the same way: the bytes go to a temp file beside it, which becomes
 * `path` only once complete and flushed. A stream that fails or is aborted part way leaves
 * neither a half-written `path` nor the temp file. `mode` is the new file's (umask applies).
 */
export async function writeStreamAtomic(
  path: string,
  source: AsyncIterable<Uint8Array>,
  options: { mode?: number; signal?: AbortSignal } = {},
): Promise<number> {
  let written = 0;
  await writeAtomic(path, options.mode ?? 0o600, async (handle) => {
    for await (const chunk of source) {
      options.signal?.throwIfAborted();
      await handle.write(chunk);
      written += chunk.byteLength;
    }
    options.signal?.throwIfAborted();
  });
  return written;
}

async function writeAtomic(
  path: string,
  mode: number,
  write: (handle: FileHandle) => Promise<unknown>,
  { durable = true }: WriteOptions = {},
): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await openMakingFolder(temp, mode);
  try {
    await write(handle);
    if (durable) await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (!durable) return;
  // The rename is only durable once the directory entry is flushed too.
  const dir = await open(dirname(path), 'r').catch(() => undefined);
  if (dir) {
    await dir.sync().catch(() => undefined);
    await dir.close();
  }
}

/** Writes a value as pretty JSON, atomically. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Reads a JSON file, or resolves to undefined when it does not exist. */
export async function readJsonIfExists<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Opens a new file for writing, making its folder only when it is missing: asking for the folder
 * before every write cost an upload of 1,000 small files 0.3 s of its main thread (a journal
 * write each).
 */
async function openMakingFolder(path: string, mode: number): Promise<FileHandle> {
  try {
    return await open(path, 'w', mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(path), { recursive: true });
    return open(path, 'w', mode);
  }
}
