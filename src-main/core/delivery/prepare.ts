/**
 * The local half of planning: lists the audio files of a folder, reads their tags (json mode)
 * and merges an optional metadata CSV. Reads the disk only; never writes, never connects.
 */
import { readFile } from 'node:fs/promises';

import { isDeliverable, listLocalFiles } from '../files/local-files.js';
import { finishScan } from '../model/read-result.js';
import { scanFolder } from '../tags/scan-folder.js';
import type { DeliveryMode } from './delivery-record.js';
import { mergeMetadata, readMetadataCsv } from './metadata-csv.js';
import type { LocalFile, PlanFinding, PlannedTrack } from './plan.js';

/** The files a delivery of `dir` holds (`listLocalFiles`), and a finding for those it leaves out. */
export async function listAudioFiles(
  dir: string,
): Promise<{ files: LocalFile[]; findings: PlanFinding[] }> {
  const listed = await listLocalFiles(dir);
  const files = listed
    .filter((f) => isDeliverable(f.kind))
    .map(({ path, localPath, size, mtimeMs }) => ({ path, localPath, size, mtimeMs }));
  const hidden = listed.filter((f) => f.kind === 'hidden').length;
  const other = listed.length - files.length - hidden;
  const left = [
    ...(hidden > 0 ? [`${hidden} hidden (name starting with '.')`] : []),
    ...(other > 0 ? [`${other} not audio`] : []),
  ];
  const findings: PlanFinding[] =
    left.length > 0
      ? [
          {
            level: 'warning',
            message: `${listed.length - files.length} file(s) left out: ${left.join(', ')}`,
          },
        ]
      : [];
  return { files, findings };
}

/** Files, tracks (json) and the findings of reading them. */
export interface PreparedInput {
  files: LocalFile[];
  tracks?: PlannedTrack[];
  findings: PlanFinding[];
}

/** Reads what a plan needs from the disk. */
export async function prepareDelivery(args: {
  dir: string;
  mode: DeliveryMode;
  metadataCsv?: string;
  download?: boolean;
  signal?: AbortSignal;
}): Promise<PreparedInput> {
  const listing = args.download ? { files: [], findings: [] } : await listAudioFiles(args.dir);
  const { files } = listing;
  const findings: PlanFinding[] = args.mode === 'json' ? [] : listing.findings;
  if (args.mode !== 'json') return { files, findings };
  let tracks: PlannedTrack[] = [];
  if (!args.download) {
    const entries = finishScan(await scanFolder(args.dir, { signal: args.signal }));
    tracks = entries
      .filter((e) => e.track || e.findings.some((f) => f.level === 'error'))
      .map((e) => ({ path: e.file, track: e.track, findings: e.findings }));
  }
  if (args.metadataCsv) {
    const { rows, unknown } = readMetadataCsv(await readFile(args.metadataCsv, 'utf8'));
    if (unknown.length > 0) {
      findings.push({
        level: 'warning',
        message: `${args.metadataCsv}: column(s) ${unknown.join(', ')} ignored`,
      });
    }
    const unmatched = mergeMetadata(tracks, rows);
    for (const row of unmatched) {
      if (args.download && row.primary_media && row.outer_id) {
        const { path, ...rest } = row;
        void path;
        tracks.push({
          track: {
            outer_id: rest.outer_id,
            primary_media: rest.primary_media,
            ...(rest.title ? { title: rest.title } : {}),
            ...(rest.isrc ? { isrc: rest.isrc } : {}),
          },
          findings: [],
        });
      } else {
        findings.push({
          level: 'warning',
          message: `metadata row matches no track (${row.isrc ?? row.outer_id ?? row.path ?? 'no key'})`,
        });
      }
    }
  }
  return { files, tracks, findings };
}
