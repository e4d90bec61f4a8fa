const MiB = 1024 * 1024;

/** S3's limits and Courier's floor for multipart uploads. */
export const PART_LIMITS = {
  /** Courier's smallest part: fewer requests than S3's 5 MiB minimum, still little memory. */
  floor: 8 * MiB,
  max: 5 * 1024 * MiB,
  /** S3 allows 10,000 parts; staying under it leaves a margin. */
  maxParts: 9_999,
} as const;

/**
 * Chooses the part size for a file: the floor unless the file needs bigger parts to stay under
 * 10,000 parts, rounded up to a whole MiB, never above 5 GiB. `floor` may be lowered by tests
 * only (servers started for tests accept small parts), so that test data stays small.
 */
export function choosePartSize(fileSize: number, floor: number = PART_LIMITS.floor): number {
  const needed = Math.ceil(fileSize / PART_LIMITS.maxParts);
  const size = needed <= floor ? floor : Math.ceil(needed / MiB) * MiB;
  if (size > PART_LIMITS.max) {
    throw new RangeError(`A file of ${fileSize} bytes is larger than S3 allows (5 TiB).`);
  }
  return size;
}

/** Number of parts a file of `fileSize` bytes is cut into with parts of `partSize` bytes. */
export function partCount(fileSize: number, partSize: number): number {
  return Math.max(1, Math.ceil(fileSize / partSize));
}

/** Byte range `[start, end)` of part `partNumber` (1-based). */
export function partRange(
  fileSize: number,
  partSize: number,
  partNumber: number,
): { start: number; end: number } {
  const start = (partNumber - 1) * partSize;
  return { start, end: Math.min(fileSize, start + partSize) };
}
