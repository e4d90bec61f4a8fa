/**
 * What was planned is what is sent. Planning records each file's size, mtime and MD5
 * (`fingerprintPlan`); the uploader sends a file only while it still matches; and a re-run of
 * the same command whose files changed meanwhile plans them again (`changedFiles`,
 * `replanRecord`): tags re-read, the CSV re-merged, everything validated again, while the
 * requests already accepted stay as they are.
 */
import { stat } from 'node:fs/promises';

import { type FileFingerprint, fingerprintFiles, sameStat } from '../files/file-fingerprint.js';
import type { Track } from '../model/track.js';
import { AUDIO_ROOT } from '../storage/object-key.js';
import type { DeliveryBatch, DeliveryFile, DeliveryRecord } from './delivery-record.js';
import { chunk, type DeliveryPlan } from './plan.js';

/**
 * Records the fingerprint of every file of a plan. A file that changed since it was listed (or,
 * in the app, since its tags were read) or can no longer be read is a blocking finding: its
 * metadata would describe other bytes.
 */
export async function fingerprintPlan(
  plan: DeliveryPlan,
  signal?: AbortSignal,
  /** Fingerprints known already (the ledger's), by absolute path: not hashed again if unchanged. */
  known?: ReadonlyMap<string, FileFingerprint>,
): Promise<void> {
  const { files } = plan.record;
  const prints = await fingerprintFiles(
    files.map((f) => f.localPath),
    { ...(signal ? { signal } : {}), ...(known ? { known } : {}) },
  );
  files.forEach((file, i) => {
    const print = prints[i]!;
    if ('error' in print) {
      plan.findings.push({
        level: 'error',
        path: file.path,
        message: `${print.error}; put it back or leave it out`,
      });
      return;
    }
    if (!sameStat(file, print)) {
      plan.findings.push({
        level: 'error',
        path: file.path,
        message:
          'the file changed on disk after its tags were read; read it again (run the command again, or in the app add the file again)',
      });
    }
    Object.assign(file, { size: print.size, mtimeMs: print.mtimeMs, md5: print.md5 });
  });
  plan.record.bytes.total = files.reduce((sum, f) => sum + f.size, 0);
  plan.blocked = plan.findings.some((f) => f.level === 'error');
}

/** Keys of the requests the service already accepted: their files are delivered. */
function acceptedKeys(record: DeliveryRecord): Set<string> {
  return new Set(record.batches.filter((b) => b.state === 'accepted').flatMap((b) => b.keys));
}

/**
 * The files of a record's unaccepted requests that are not, on disk, what was planned: changed,
 * gone, or failed by the uploader as changed. Only a stat each (no file is read).
 */
export async function changedFiles(record: DeliveryRecord): Promise<DeliveryFile[]> {
  const done = acceptedKeys(record);
  const changed: DeliveryFile[] = [];
  for (const file of record.files) {
    if (done.has(file.key)) continue;
    const info = await stat(file.localPath).catch(() => undefined);
    if (!info || !sameStat(file, info) || file.error?.includes('changed on disk')) {
      changed.push(file);
    }
  }
  return changed;
}

/**
 * The record of a re-run whose files changed: `fresh` is the same command planned again (same
 * folder) from what is on disk now. Accepted requests are kept (renumbered first); every other
 * track and file comes from `fresh`. Objects this delivery put in its folder that `fresh` no
 * longer has are listed in `discard`, to be removed from the bucket before anything is sent (a
 * folder call would otherwise deliver them).
 */
export function replanRecord(
  existing: DeliveryRecord,
  fresh: DeliveryRecord,
  changed: readonly string[],
): DeliveryRecord {
  const done = acceptedKeys(existing);
  const kept = existing.batches.filter((b) => b.state === 'accepted');
  const batches: DeliveryBatch[] = kept.map((b, index) => ({ ...b, index }));
  const tracks = existing.tracks ? kept.map((b) => existing.tracks![b.index] ?? []) : undefined;
  const files = [
    ...existing.files.filter((f) => done.has(f.key)),
    ...fresh.files.filter((f) => !done.has(f.key)),
  ];
  if (fresh.tracks && tracks) {
    const download = fresh.options.media_fetch_type === 'download';
    const keyOf = (track: Track) => AUDIO_ROOT + track.primary_media;
    const waiting = fresh.tracks.flat().filter((t) => download || !done.has(keyOf(t)));
    for (const group of chunk(waiting)) {
      batches.push({
        index: batches.length,
        outerIds: group.map((t) => t.outer_id),
        keys: download ? [] : group.map(keyOf),
        state: 'pending',
        attempts: 0,
      });
      tracks.push(group);
    }
  } else if (kept.length === 0) {
    batches.push(...fresh.batches);
  }
  const freshKeys = new Set(files.map((f) => f.key));
  const discard = [
    ...new Set([
      ...(existing.discard ?? []),
      ...existing.files.filter((f) => !freshKeys.has(f.key)).map((f) => f.key),
    ]),
  ];
  const { mapping } = fresh;
  return {
    ...existing,
    state: 'planned',
    files,
    batches,
    ...(tracks ? { tracks } : {}),
    ...(mapping ? { mapping } : {}),
    ...(discard.length > 0 ? { discard } : {}),
    bytes: { total: files.reduce((sum, f) => sum + f.size, 0), sent: existing.bytes.sent },
    partsGeneration: (existing.partsGeneration ?? 0) + 1,
    replans: [...(existing.replans ?? []), { at: new Date().toISOString(), files: [...changed] }],
  };
}
