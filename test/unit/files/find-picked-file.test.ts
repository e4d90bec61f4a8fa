import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Counts the folders listed, to see how often the roots are walked; every call goes through.
const listed = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = ((...args: Parameters<typeof fs.readdir>) => {
    listed.count++;
    return fs.readdir(...args);
  }) as typeof fs.readdir;
  return { ...fs, readdir, default: { ...fs, readdir } };
});

import { inspectFile } from '../../../src-main/core/files/file-inspection.js';
import {
  isVisibleBelow,
  PickedFileFinder,
  pickedSegments,
} from '../../../src-main/core/files/find-picked-file.js';

/** What the browser host finds of a picked file: the candidates its inspection keeps. */
async function found(
  finder: PickedFileFinder,
  relativePath: string,
  claim: { size: number; lastModified: number },
): Promise<string[]> {
  const within = await finder.realRoots();
  const candidates = await finder.candidates(relativePath);
  return candidates.filter((path) => inspectFile({ path, claim, within }).found);
}

describe('PickedFileFinder', () => {
  let root: string;
  let outside: string;
  let claim: { size: number; lastModified: number };
  const claimOf = async (path: string) => {
    const info = await stat(path);
    return { size: info.size, lastModified: Math.trunc(info.mtimeMs) };
  };

  beforeAll(async () => {
    const base = await mkdtemp(join(tmpdir(), 'courier-finder-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    await mkdir(join(root, 'Label', '2024', 'Album'), { recursive: true });
    await mkdir(join(root, '.config', 'Album'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(root, 'Label', '2024', 'Album', '01.flac'), 'flac!');
    await writeFile(join(root, 'secret.txt'), 'no');
    await writeFile(join(root, '.config', 'token'), 'hidden');
    await writeFile(join(root, '.config', 'Album', '01.flac'), 'flac!');
    await writeFile(join(outside, 'key.pem'), 'outside');
    claim = await claimOf(join(root, 'Label', '2024', 'Album', '01.flac'));
  });

  afterAll(() => rm(join(root, '..'), { recursive: true, force: true }));

  it('finds a picked folder below a root by its name', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(found(finder, 'Album/01.flac', claim)).resolves.toEqual([
      join(root, 'Label', '2024', 'Album', '01.flac'),
    ]);
  });

  it('finds a file picked on its own ("Add files…") in a sub-folder by its name', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(found(finder, '01.flac', claim)).resolves.toEqual([
      join(root, 'Label', '2024', 'Album', '01.flac'),
    ]);
    // The hidden copy of the same file is never a candidate.
    await expect(found(finder, '01.flac', claim)).resolves.not.toContain(
      join(root, '.config', 'Album', '01.flac'),
    );
    await expect(found(finder, '01.flac', { ...claim, size: 99 })).resolves.toEqual([]);
  });

  it('refuses a file whose size does not match', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(found(finder, 'Album/01.flac', { ...claim, size: 99 })).resolves.toEqual([]);
  });

  it('never climbs out of a root', async () => {
    const finder = new PickedFileFinder([join(root, 'Label')]);
    await expect(found(finder, '../secret.txt', { size: 2, lastModified: 0 })).resolves.toEqual([]);
    await expect(found(finder, 'Album/../../../secret.txt', claim)).resolves.toEqual([]);
  });

  it('never finds a hidden file, asked directly or below a hidden folder', async () => {
    const finder = new PickedFileFinder([root]);
    const token = await claimOf(join(root, '.config', 'token'));
    await expect(found(finder, '.config/token', token)).resolves.toEqual([]);
    // The folder search skips hidden folders: only the visible Album is a candidate.
    await expect(found(finder, 'Album/01.flac', claim)).resolves.not.toContain(
      join(root, '.config', 'Album', '01.flac'),
    );
  });

  it('never follows a link out of the roots or into a hidden folder', async () => {
    await symlink(join(outside, 'key.pem'), join(root, 'key.pem'));
    await symlink(join(root, '.config', 'token'), join(root, 'token'));
    await symlink(outside, join(root, 'Linked'));
    const finder = new PickedFileFinder([root]);
    const key = await claimOf(join(outside, 'key.pem'));
    await expect(found(finder, 'key.pem', key)).resolves.toEqual([]);
    await expect(found(finder, 'Linked/key.pem', key)).resolves.toEqual([]);
    await expect(
      found(finder, 'token', await claimOf(join(root, '.config', 'token'))),
    ).resolves.toEqual([]);
  });

  it('walks the roots once for the many files of one picked folder asked at once', async () => {
    const album = join(root, 'Label', '2024', 'Album');
    const names = Array.from({ length: 40 }, (_, i) => `${String(i + 2).padStart(2, '0')}.flac`);
    await Promise.all(names.map((name) => writeFile(join(album, name), `flac ${name}`)));
    const claims = await Promise.all(names.map((name) => claimOf(join(album, name))));
    const finder = new PickedFileFinder([root]);
    const before = listed.count;
    const all = await Promise.all(
      names.map((name, i) => found(finder, `Album/${name}`, claims[i]!)),
    );
    expect(all).toEqual(names.map((name) => [join(album, name)]));
    // One walk: the root, Label, 2024 and Album, each listed once.
    expect(listed.count - before).toBe(4);
    await Promise.all(names.map((name) => rm(join(album, name))));
  });

  it('finds a folder created after a first miss', async () => {
    const finder = new PickedFileFinder([root]);
    await expect(found(finder, 'Late/x.flac', claim)).resolves.toEqual([]);
    await mkdir(join(root, 'Late'));
    await writeFile(join(root, 'Late', 'x.flac'), 'flac!');
    await expect(
      found(finder, 'Late/x.flac', await claimOf(join(root, 'Late', 'x.flac'))),
    ).resolves.toEqual([join(root, 'Late', 'x.flac')]);
  });
});

describe('pickedSegments()', () => {
  it.each(['Album/01.flac', '01.flac', 'A b/c…d/é.flac'])('accepts %s', (path) => {
    expect(pickedSegments(path)).toEqual(path.split('/'));
  });

  it.each([
    '',
    '/etc/passwd',
    'a//b',
    './a',
    '../a',
    'a/..',
    '.ssh/id_rsa',
    'Album/.DS_Store',
    'a\0b',
  ])('refuses %j', (path) => {
    expect(pickedSegments(path)).toBeNull();
  });
});

describe('isVisibleBelow()', () => {
  it('holds for a path below the root with no hidden segment, and for nothing else', () => {
    expect(isVisibleBelow('/music', '/music/Album/01.flac')).toBe(true);
    expect(isVisibleBelow('/music', '/music')).toBe(false);
    expect(isVisibleBelow('/music', '/musicals/01.flac')).toBe(false);
    expect(isVisibleBelow('/music', '/etc/passwd')).toBe(false);
    expect(isVisibleBelow('/music', '/music/.hidden/01.flac')).toBe(false);
    // A hidden folder above the root is the user's choice of root, not a guess.
    expect(isVisibleBelow('/home/u/.local/music', '/home/u/.local/music/01.flac')).toBe(true);
  });
});
