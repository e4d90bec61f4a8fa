import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { writeFileAtomic, writeStreamAtomic } from '../../../src-main/core/files/atomic-file.js';

describe('atomic-file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-atomic-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes into folders that do not exist yet, and again after the folder was removed', async () => {
    const path = join(dir, 'journal', 'deep', 'entry.json');
    await writeFileAtomic(path, 'one', { durable: false });
    expect(await readFile(path, 'utf8')).toBe('one');
    await writeFileAtomic(path, 'two');
    expect(await readFile(path, 'utf8')).toBe('two');
    // A user clears the data folder between two writes: the next write makes it again.
    await rm(join(dir, 'journal'), { recursive: true });
    await writeFileAtomic(path, 'three', { durable: false });
    expect(await readFile(path, 'utf8')).toBe('three');
    expect(await readdir(join(dir, 'journal', 'deep'))).toEqual(['entry.json']);
  });

  it('fails with the reason when the folder cannot be made, and leaves nothing behind', async () => {
    // A file where the folder should be: neither opening nor making the folder can succeed.
    await writeFile(join(dir, 'taken'), 'not a folder');
    await expect(writeFileAtomic(join(dir, 'taken', 'entry.json'), 'x')).rejects.toThrow(
      /ENOTDIR|EEXIST/,
    );
    expect(await readdir(dir)).toEqual(['taken']);
    expect(await readFile(join(dir, 'taken'), 'utf8')).toBe('not a folder');
  });

  it('keeps the old content and no temp file when a streamed write fails part way', async () => {
    const path = join(dir, 'session.jsonl');
    await writeFileAtomic(path, 'old');
    async function* broken() {
      yield new TextEncoder().encode('new, half');
      throw new Error('the source failed');
    }
    await expect(writeStreamAtomic(path, broken())).rejects.toThrow('the source failed');
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['session.jsonl']);
  });
});
