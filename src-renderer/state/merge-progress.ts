import type { TransferProgress, TransferSnapshot } from '../../src-main/ipc/contract.js';

/**
 * Folds one `delivery:progress` event into the snapshot the view holds. A complete event (a
 * run's first) replaces it; any other carries the files listed only when they changed (the whole
 * list, at most `FILES_SHOWN`), and only the requests that changed, which replace theirs by
 * index. Returns a new snapshot; `current` is not modified.
 */
export function mergeProgress(
  current: TransferSnapshot | undefined,
  progress: TransferProgress,
): TransferSnapshot {
  const { complete, files, batches, ...totals } = progress;
  if (complete || !current) return { ...totals, files: files ?? [], batches };
  const mergedBatches = [...current.batches];
  for (const batch of batches) mergedBatches[batch.index] = batch;
  return { ...totals, files: files ?? current.files, batches: mergedBatches };
}
