import type { TransferProgress, TransferSnapshot } from '../../src-main/ipc/contract.js';

/**
 * Folds one `delivery:progress` event into the snapshot the view holds. A complete event (a
 * run's first) replaces it; any other carries only the files and requests that changed, which
 * replace theirs by key and index. Returns a new snapshot; `current` is not modified.
 */
export function mergeProgress(
  current: TransferSnapshot | undefined,
  progress: TransferProgress,
): TransferSnapshot {
  const { complete, files, batches, ...totals } = progress;
  if (complete || !current) return { ...totals, files, batches };
  const fileAt = new Map(current.files.map((f, i) => [f.key, i]));
  const mergedFiles = [...current.files];
  for (const file of files) {
    const i = fileAt.get(file.key);
    if (i === undefined) mergedFiles.push(file);
    else mergedFiles[i] = file;
  }
  const mergedBatches = [...current.batches];
  for (const batch of batches) mergedBatches[batch.index] = batch;
  return { ...totals, files: mergedFiles, batches: mergedBatches };
}
