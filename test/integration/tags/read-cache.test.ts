/**
 * Reads kept between delivery plans: an unchanged file is not read again, a changed or new one
 * is, and a read that found an error is never kept.
 */
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readCacheFile, scanFolderKeepingReads } from '../../../src-main/core/tags/read-cache.js';
import { scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import { makeTaggedAudio, missingFixtureTools, writeTags } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`Skipping read-cache tests: missing ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('scanFolderKeepingReads()', () => {
  let home: string;
  let dir: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-reads-'));
    dir = join(home, 'masters');
    for (const i of [1, 2, 3]) {
      await makeTaggedAudio('mp3', join(dir, `0${i}.mp3`), 'id3v2.4', {
        title: `Track ${i}`,
        isrc: `GBABC2600${100 + i}`,
      });
    }
    await writeFile(join(dir, 'broken.mp3'), 'not audio at all');
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /** A scan keeping reads under `home`, with how many files it read. */
  const scan = async (keep = true) => {
    let read = 0;
    const reads = { dataDir: join(home, 'data'), keep };
    const results = await scanFolderKeepingReads(dir, reads, {
      onChunk: ({ files }) => (read += files),
    });
    return { results, read };
  };

  it('reads a file again only once it changed, and gives what scanFolder gives', async () => {
    const first = await scan();
    expect(first.read).toBe(4);
    expect(first.results).toEqual(await scanFolder(dir));

    // The broken file is read every time: its error is not kept.
    const again = await scan();
    expect(again.read).toBe(1);
    expect(again.results).toEqual(first.results);

    await writeTags([
      {
        path: join(dir, '02.mp3'),
        family: 'id3v2.4',
        tags: { title: 'Track 2 (retitled)', isrc: 'GBABC2600102' },
      },
    ]);
    const retitled = await scan();
    expect(retitled.read).toBe(2);
    expect(retitled.results.find((r) => r.file === '02.mp3')?.draft?.title?.value).toBe(
      'Track 2 (retitled)',
    );
    expect(retitled.results).toEqual(await scanFolder(dir));

    // Same size, another mtime: read again. A scan that keeps nothing (a dry run) leaves
    // the file to be read again by the next one.
    await utimes(join(dir, '03.mp3'), new Date(), new Date(Date.now() - 60_000));
    expect((await scan(false)).read).toBe(2);
    expect((await scan()).read).toBe(2);
    expect((await scan()).read).toBe(1);
  });

  it('ignores reads kept by another version of Courier', async () => {
    await scan();
    const file = readCacheFile(join(home, 'data'), dir);
    const kept = JSON.parse(await readFile(file, 'utf8')) as { version: string };
    await writeFile(file, JSON.stringify({ ...kept, version: '0.0.0/1' }));
    expect((await scan()).read).toBe(4);
  });
});
