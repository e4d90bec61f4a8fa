import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FileGrants, pathProof } from '../../../src-main/core/files/file-grants.js';
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
      proof: (await pathProof(join(dir, 'a.flac'), info.size))!,
    };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const locate = async (claim: PickedClaim) => [join(dir, claim.relativePath)];
  const guesses = (count: number): PickedClaim[] =>
    Array.from({ length: count }, (_, i) => ({ ...real, lastModified: real.lastModified + i + 2 }));

  it('grants a file whose content matches, in the order asked, and tries every candidate', async () => {
    const copy = join(dir, 'copy.flac');
    await writeFile(copy, 'other bytes');
    const result = await grantPicked(
      [real, { ...real, relativePath: 'missing.flac' }],
      async (claim) => (claim.relativePath === 'a.flac' ? [copy, join(dir, 'a.flac')] : []),
      new FileGrants(),
      new MissBudget(),
    );
    expect(result.granted).toMatchObject([{ relativePath: 'a.flac', size: real.size }]);
    expect(result.refused).toEqual([{ relativePath: 'missing.flac', reason: 'not found on disk' }]);
  });

  it('stops looking after too many misses in one request, and says why', async () => {
    const looked: number[] = [];
    const result = await grantPicked(
      [...guesses(100), real],
      async (claim, index) => {
        looked.push(index);
        return locate(claim);
      },
      new FileGrants(),
      new MissBudget({ perRequest: 10, perMinute: 1_000 }),
    );
    expect(result.granted).toEqual([]);
    expect(looked.length).toBeLessThan(20);
    expect(result.refused.at(-1)!.reason).toMatch(/not looked for: .*guard against guessing/);
  });

  it('stops looking after too many misses in a minute, then looks again', async () => {
    let now = 0;
    const budget = new MissBudget({ perRequest: 1_000, perMinute: 20, now: () => now });
    const grants = new FileGrants();
    await grantPicked(guesses(20), locate, grants, budget);
    const blocked = await grantPicked([real], locate, grants, budget);
    expect(blocked.granted).toEqual([]);
    expect(blocked.refused[0]!.reason).toMatch(/in the last minute .*again in a minute/);
    now += 61_000;
    const later = await grantPicked([real], locate, grants, budget);
    expect(later.granted).toHaveLength(1);
  });

  it('never counts files that are granted: a drop of thousands goes through', async () => {
    const result = await grantPicked(
      Array.from({ length: 2_000 }, () => real),
      locate,
      new FileGrants(),
      new MissBudget({ perRequest: 5, perMinute: 5 }),
    );
    expect(result.granted).toHaveLength(2_000);
  });
});
