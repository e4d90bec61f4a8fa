import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { listLocalFiles } from '../../../src-main/core/files/local-files.js';

describe('local-files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-listing-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('listLocalFiles()', () => {
    it.each([
      ['in the thread pool', false],
      ['with blocking calls', true],
    ])(
      '%s: lists every file of a deep, wide folder once, sorted, without entering hidden folders or linked ones',
      async (_, blocking) => {
        const expected: string[] = [];
        for (let a = 0; a < 3; a++) {
          for (let b = 0; b < 3; b++) {
            await mkdir(join(dir, `disc ${a}`, `side ${b}`), { recursive: true });
            for (let i = 0; i < 150; i++) {
              const path = `disc ${a}/side ${b}/${String(i).padStart(3, '0')}.mp3`;
              await writeFile(join(dir, path), 'x'.repeat(i));
              expected.push(path);
            }
          }
        }
        await mkdir(join(dir, '.cache'));
        await writeFile(join(dir, '.cache', 'inside.mp3'), 'x');
        await writeFile(join(dir, '.DS_Store'), 'x');
        await symlink(join(dir, 'disc 0', 'side 0', '001.mp3'), join(dir, 'link.mp3'));
        await symlink(join(dir, 'disc 1'), join(dir, 'linked folder'));
        await symlink(join(dir, 'gone.mp3'), join(dir, 'broken link.mp3'));
        expected.push('.DS_Store', 'link.mp3');
        expected.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        let seen = 0;

        const listed = await listLocalFiles(dir, { onSeen: (n) => (seen = n), blocking });

        expect(listed.map((f) => f.path)).toEqual(expected);
        expect(listed.find((f) => f.path === 'disc 2/side 1/149.mp3')).toMatchObject({
          localPath: join(dir, 'disc 2', 'side 1', '149.mp3'),
          size: 149,
          kind: 'audio',
        });
        expect(listed.find((f) => f.path === '.DS_Store')!.kind).toBe('hidden');
        expect(listed.find((f) => f.path === 'link.mp3')!.size).toBe(1);
        expect(seen).toBe(9 * 150 + 3 + 3 * 3 + 5); // the .cache folder's own entry, not its file
      },
    );

    it.each([false, true])(
      'fails for a folder that is not there (blocking: %s)',
      async (blocking) => {
        await expect(listLocalFiles(join(dir, 'gone'), { blocking })).rejects.toMatchObject({
          code: 'ENOENT',
        });
      },
    );
  });
});
