import { mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FileGrants } from '../../../src-main/core/files/file-grants.js';
import { FileInspector, proofOfPath } from '../../../src-main/core/files/file-inspection.js';
import {
  grantPicked,
  MissBudget,
  type PickedClaim,
} from '../../../src-main/core/files/grant-picked.js';

describe('grantPicked()', () => {
  let dir: string;
  let real: PickedClaim;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-grant-picked-'));
    await writeFile(join(dir, 'a.flac'), 'fLaC audio');
    const info = await stat(join(dir, 'a.flac'));
    real = {
      name: 'a.flac',
      relativePath: 'a.flac',
      size: info.size,
      lastModified: Math.trunc(info.mtimeMs),
      proof: proofOfPath(join(dir, 'a.flac'), info.size)!,
    };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const inspector = new FileInspector();
  const door = { locate: async (claim: PickedClaim) => [join(dir, claim.relativePath)] };
  const guesses = (count: number): PickedClaim[] =>
    Array.from({ length: count }, (_, i) => ({ ...real, lastModified: real.lastModified + i + 2 }));

  it('grants a file whose content matches, in the order asked, and tries every candidate', async () => {
    const copy = join(dir, 'copy.flac');
    await writeFile(copy, 'fLaC AUDIO');
    // The copy has the same size and date, and other bytes: only its proof tells them apart.
    await utimes(copy, (await stat(join(dir, 'a.flac'))).atime, real.lastModified / 1000);
    await writeFile(join(dir, 'b.flac'), 'fLaC other');
    await utimes(join(dir, 'b.flac'), new Date(), real.lastModified / 1000);
    const result = await grantPicked(
      [real, { ...real, relativePath: 'missing.flac' }, { ...real, relativePath: 'b.flac' }],
      {
        locate: async (claim) =>
          claim.relativePath === 'a.flac'
            ? [copy, join(dir, 'a.flac')]
            : [join(dir, claim.relativePath), join(dir, 'nowhere', claim.relativePath)],
      },
      new FileGrants(),
      inspector,
      new MissBudget(),
    );
    expect(result.granted).toMatchObject([{ relativePath: 'a.flac', size: real.size }]);
    expect(result.refused).toEqual([
      {
        relativePath: 'missing.flac',
        reason: `No such file: ${join(dir, 'nowhere', 'missing.flac')}`,
      },
      {
        relativePath: 'b.flac',
        reason: `The content of ${join(dir, 'b.flac')} is not the content of the file picked in the page.`,
      },
    ]);
  });

  it('grants nothing whose real path leaves the folders the door allows', async () => {
    const inside = join(dir, 'inside');
    await mkdir(inside, { recursive: true });
    await symlink(join(dir, 'a.flac'), join(inside, 'a.flac'));
    const result = await grantPicked(
      [real],
      { locate: async () => [join(inside, 'a.flac')], within: async () => [inside] },
      new FileGrants(),
      inspector,
      new MissBudget(),
    );
    expect(result.refused).toEqual([{ relativePath: 'a.flac', reason: 'not found on disk' }]);
    const allowed = await grantPicked(
      [real],
      { locate: async () => [join(inside, 'a.flac')], within: async () => [dir] },
      new FileGrants(),
      inspector,
      new MissBudget(),
    );
    expect(allowed.granted).toHaveLength(1);
  });

  it('refuses a file that came without a proof, without looking for it', async () => {
    const looked: number[] = [];
    const { proof: _, ...unproven } = real;
    const result = await grantPicked(
      [unproven],
      { locate: async (_claim, index) => (looked.push(index), []) },
      new FileGrants(),
      inspector,
      new MissBudget(),
    );
    expect(looked).toEqual([]);
    expect(result.refused).toEqual([
      { relativePath: 'a.flac', reason: 'no proof of its content came with it' },
    ]);
  });

  it('stops looking after too many misses in one request, and says why', async () => {
    const looked: number[] = [];
    const result = await grantPicked(
      [...guesses(100), real],
      {
        locate: async (claim, index) => {
          looked.push(index);
          return door.locate(claim);
        },
      },
      new FileGrants(),
      inspector,
      new MissBudget({ perRequest: 10, perMinute: 1_000 }),
    );
    expect(result.granted).toEqual([]);
    expect(looked).toHaveLength(10);
    expect(result.refused.at(-1)!.reason).toMatch(/not looked for: .*guard against guessing/);
  });

  it('stops looking after too many misses in a minute, then looks again', async () => {
    let now = 0;
    const budget = new MissBudget({ perRequest: 1_000, perMinute: 20, now: () => now });
    const grants = new FileGrants();
    await grantPicked(guesses(20), door, grants, inspector, budget);
    const blocked = await grantPicked([real], door, grants, inspector, budget);
    expect(blocked.granted).toEqual([]);
    expect(blocked.refused[0]!.reason).toMatch(/in the last minute .*again in a minute/);
    now += 61_000;
    const later = await grantPicked([real], door, grants, inspector, budget);
    expect(later.granted).toHaveLength(1);
  });

  it('never counts files that are granted: a drop of thousands goes through', async () => {
    const result = await grantPicked(
      Array.from({ length: 2_000 }, () => real),
      door,
      new FileGrants(),
      inspector,
      new MissBudget({ perRequest: 5, perMinute: 5 }),
    );
    expect(result.granted).toHaveLength(2_000);
  });
});
