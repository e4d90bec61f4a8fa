import { describe, expect, it } from 'vitest';

import {
  choosePartSize,
  PART_LIMITS,
  partCount,
  partRange,
  SINGLE_PUT_MAX,
  singlePutLimit,
} from '../../../src-main/core/storage/part-size.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('part size', () => {
  it('uses the 8 MiB floor for ordinary masters', () => {
    expect(choosePartSize(50 * MiB)).toBe(8 * MiB);
    expect(choosePartSize(3 * GiB)).toBe(8 * MiB);
  });

  it('grows in whole MiB to stay under 10,000 parts', () => {
    for (const size of [80 * GiB, 100 * GiB + 12345, 1024 * GiB, 5 * 1024 * GiB]) {
      const part = choosePartSize(size);
      expect(part % MiB).toBe(0);
      expect(partCount(size, part)).toBeLessThan(10_000);
      expect(part).toBeGreaterThanOrEqual(PART_LIMITS.floor);
      expect(part).toBeLessThanOrEqual(PART_LIMITS.max);
    }
  });

  it('refuses files larger than S3 can store', () => {
    expect(() => choosePartSize(6 * 1024 * GiB * 10_000)).toThrow(RangeError);
  });

  it('lets tests lower the floor', () => {
    expect(choosePartSize(3 * MiB, 256 * 1024)).toBe(256 * 1024);
  });

  it('cuts a file into contiguous ranges with a short last part', () => {
    const size = 3 * MiB + 5;
    const n = partCount(size, MiB);
    expect(n).toBe(4);
    const ranges = Array.from({ length: n }, (_, i) => partRange(size, MiB, i + 1));
    expect(ranges.at(-1)).toEqual({ start: 3 * MiB, end: size });
    ranges.slice(1).forEach((r, i) => expect(r.start).toBe(ranges[i]!.end));
  });

  it('counts an empty file as one part', () => {
    expect(partCount(0, MiB)).toBe(1);
  });

  describe('single-PUT limit', () => {
    const floor = PART_LIMITS.floor;
    const limit = (bytesPerSecond: number, concurrency = 8): number =>
      singlePutLimit({ floor, max: SINGLE_PUT_MAX, bytesPerSecond, concurrency });

    it('sends only files up to one part in one PUT while the link speed is unknown', () => {
      expect(limit(0)).toBe(floor);
    });

    it('keeps a home uplink resumable part by part', () => {
      // 10 Mbit/s shared by 8 transfers: a bigger PUT would risk more than 15 s of work.
      expect(limit(1.25e6)).toBe(floor);
    });

    it('grows with the link so that 8 PUTs in flight hold about 15 s of transfer', () => {
      // 100 Mbit/s: 12.5 MB/s × 15 s / 8 ≈ 23 MB.
      expect(limit(12.5e6)).toBe(Math.floor((12.5e6 * 15) / 8));
      expect(limit(12.5e6, 4)).toBe(Math.floor((12.5e6 * 15) / 4));
    });

    it('never goes above its maximum', () => {
      expect(limit(1e9)).toBe(SINGLE_PUT_MAX);
    });
  });
});
