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

/** The largest file sent in one PUT by default, however fast the link. */
export const SINGLE_PUT_MAX = 64 * MiB;

/** An interruption should cost no more than about this many seconds of a run's transfer. */
export const LOSS_BUDGET_SECONDS = 15;

/**
 * The largest file to send in one PUT right now, given the run's measured throughput.
 *
 * One PUT is one request where multipart takes at least three, and the server stores the bytes
 * once instead of assembling parts on Complete (s3rver and moto rewrite the whole object then).
 * But a PUT can't resume: an interruption loses it whole, as it loses a part in flight. So a file
 * goes in one PUT only when `concurrency` transfers of its size together hold no more than
 * LOSS_BUDGET_SECONDS of the current throughput — never below the part floor (a part in flight
 * costs as much), never above `max`. While the throughput is unknown (0), that is the floor:
 * on a slow or unknown link every file above a part is resumable part by part.
 */
export function singlePutLimit(args: {
  floor: number;
  max: number;
  bytesPerSecond: number;
  concurrency: number;
}): number {
  const affordable = (args.bytesPerSecond * LOSS_BUDGET_SECONDS) / Math.max(1, args.concurrency);
  return Math.max(args.floor, Math.min(args.max, Math.floor(affordable)));
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
