import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PickedFileFinder } from '../../../src-main/core/files/find-picked-file.js';

describe('PickedFileFinder', () => {
  let root: string;
  let claim: { size: number; lastModified: number };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-finder-'));
    await mkdir(join(root, 'Label', '2024', 'Album'), { recursive: true });
    await writeFile(join(root, 'Label', '2024', 'Album', '01.flac'), 'flac!');
    await writeFile(join(root, 'secret.txt'), 'no');
    const info = await stat(join(root, 'Label', '2024', 'Album', '01.flac'));
    claim = { size: info.size, lastModified: Math.trunc(info.mtimeMs) };
  });

  afterAll(() => rm(root, { recursive: true, force: true }));

  it('finds a picked folder below a root by its name', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(finder.find('Album/01.flac', claim)).resolves.toBe(
      join(root, 'Label', '2024', 'Album', '01.flac'),
    );
  });

  it('refuses a file whose size does not match', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(finder.find('Album/01.flac', { ...claim, size: 99 })).resolves.toBeNull();
  });

  it('never climbs out of a root', async () => {
    const finder = new PickedFileFinder([join(root, 'Label')]);
    await expect(finder.find('../secret.txt', { size: 2, lastModified: 0 })).resolves.toBeNull();
    await expect(finder.find('Album/../../../secret.txt', claim)).resolves.toBeNull();
  });

  it('finds a folder created after a first miss', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(finder.find('Late/x.flac', claim)).resolves.toBeNull();
    await mkdir(join(root, 'Late'));
    await writeFile(join(root, 'Late', 'x.flac'), 'flac!');
    const info = await stat(join(root, 'Late', 'x.flac'));
    await expect(
      finder.find('Late/x.flac', { size: info.size, lastModified: Math.trunc(info.mtimeMs) }),
    ).resolves.toBe(join(root, 'Late', 'x.flac'));
  });
});
