/**
 * The local half of planning: lists the audio files of a folder, reads their tags (json mode)
 * and merges an optional metadata CSV. Reads the disk (and may keep what it read in the data
 * directory: `read-cache.ts`); never connects.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

import { readSheet } from 'read-excel-file/node';

import { CourierError } from '../errors.js';
import { isDeliverable, listLocalFiles, sniffAudioFile } from '../files/local-files.js';
import { albumFindings } from '../model/album-review.js';
import { audioByContentMessage, opensForContent } from '../model/audio-formats.js';
import type { CsvEncoding } from '../model/csv-text.js';
import { draftToTrack } from '../model/ingestion-body.js';
import {
  checkMetadataTable,
  type CsvMerge,
  mergeCsv,
  mergeFindings,
  readMetadataCsv,
  urlRowDraft,
} from '../model/metadata-csv.js';
import { isWorkbookName, sheetTable } from '../model/metadata-sheet.js';
import { finishScanReview } from '../model/read-result.js';
import type { DraftTrack } from '../model/track.js';
import { validateLibrary } from '../model/validate.js';
import { scanFolderKeepingReads } from '../tags/read-cache.js';
import { scanFolder } from '../tags/scan-folder.js';
import type { DeliveryMode } from './delivery-record.js';
import { type MasterRead, masterRead, readMasters } from './masters-check.js';
import { type LocalFile, type PlanFinding, type PlannedTrack, plannedTrack } from './plan.js';

/**
 * The files a delivery of `dir` holds (`listLocalFiles`), and a finding for those it leaves out:
 * one for all, and one for each file that holds audio under a name that is not an audio format's
 * (`opensForContent`), which is left out until it is renamed, as the scan and the library say.
 */
export async function listAudioFiles(
  dir: string,
): Promise<{ files: LocalFile[]; findings: PlanFinding[] }> {
  const listed = await listLocalFiles(dir);
  const files = listed
    .filter((f) => isDeliverable(f.kind))
    .map(({ path, localPath, size, mtimeMs }) => ({ path, localPath, size, mtimeMs }));
  const hidden = listed.filter((f) => f.kind === 'hidden').length;
  const misnamed: PlanFinding[] = [];
  for (const f of listed) {
    if (!opensForContent(f.path)) continue;
    const extension = await sniffAudioFile(f.localPath);
    if (extension) {
      misnamed.push({
        level: 'warning',
        path: f.path,
        message: audioByContentMessage(f.path, extension),
      });
    }
  }
  const other = listed.length - files.length - hidden - misnamed.length;
  const left = [
    ...(hidden > 0 ? [`${hidden} hidden (name starting with '.')`] : []),
    ...(misnamed.length > 0 ? [`${misnamed.length} audio not named as audio (below)`] : []),
    ...(other > 0 ? [`${other} not audio`] : []),
  ];
  const findings: PlanFinding[] =
    left.length > 0
      ? [
          {
            level: 'warning',
            message: `${listed.length - files.length} file(s) left out: ${left.join(', ')}`,
          },
          ...misnamed,
        ]
      : [];
  return { files, findings };
}

/** Files, tracks (json) and the findings of reading them. */
export interface PreparedInput {
  files: LocalFile[];
  tracks?: PlannedTrack[];
  findings: PlanFinding[];
  /** What reading each file gave, by path (for the masters check, in every mode). */
  reads: Map<string, MasterRead>;
}

/**
 * Reads a metadata CSV or .xlsx workbook (its first sheet); every column must be known (see
 * `checkMetadataTable`).
 */
async function readMetadataFile(path: string, encoding: CsvEncoding | undefined) {
  const name = basename(path);
  const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    throw new CourierError(
      'csv-unreadable',
      `cannot read the metadata file ${path} (${error.code ?? error.message}); check the path`,
    );
  });
  if (!isWorkbookName(name)) return { name, ...readMetadataCsv(bytes, { encoding, name }) };
  // Numbers unparsed: a code typed as a number keeps every digit the file stores.
  const rows = await readSheet(bytes, { parseNumber: (text) => text, trim: false }).catch(
    (error: unknown) => {
      throw new CourierError(
        'csv-unreadable',
        `${name} cannot be read as an .xlsx workbook (${error instanceof Error ? error.message : String(error)}); save it again from the spreadsheet as .xlsx or CSV UTF-8`,
      );
    },
  );
  return { name, ...checkMetadataTable(sheetTable(rows), name) };
}

/** Reads what a plan needs from the disk. */
export async function prepareDelivery(args: {
  dir: string;
  mode: DeliveryMode;
  metadataCsv?: string;
  /** The metadata CSV's encoding (`--metadata-encoding`); detected when absent or `auto`. */
  metadataEncoding?: CsvEncoding;
  download?: boolean;
  /**
   * Reads kept in this data directory spare reading unchanged files again (`read-cache.ts`);
   * `keep` keeps this plan's reads (a dry run keeps nothing).
   */
  reads?: { dataDir: string; keep: boolean };
  signal?: AbortSignal;
}): Promise<PreparedInput> {
  const listing = args.download ? { files: [], findings: [] } : await listAudioFiles(args.dir);
  const { files } = listing;
  const findings: PlanFinding[] = [...listing.findings];
  if (args.mode !== 'json') {
    // Tags are not used, but every master is checked.
    const reads = args.download
      ? new Map<string, MasterRead>()
      : await readMasters(args.dir, files, args.reads, args.signal);
    return { files, findings, reads };
  }
  // Read before the scan: a CSV that cannot be used stops the command before any slow work.
  const csv = args.metadataCsv
    ? await readMetadataFile(args.metadataCsv, args.metadataEncoding)
    : undefined;
  let merged: CsvMerge | undefined;
  // Merged after outer_ids are assigned and before validation: CSV values are checked per track.
  const mergeCsvInto = csv
    ? (drafts: DraftTrack[]) => (merged = mergeCsv(drafts, csv.table, csv.mapping)).drafts
    : undefined;
  let tracks: PlannedTrack[] = [];
  const reads = new Map<string, MasterRead>();
  if (!args.download) {
    const options = { signal: args.signal };
    const read = args.reads
      ? await scanFolderKeepingReads(args.dir, args.reads, options)
      : await scanFolder(args.dir, options);
    for (const r of read) reads.set(r.file, masterRead(r));
    const review = finishScanReview(read, undefined, mergeCsvInto);
    findings.push(...albumFindings(review.albums));
    // Audio under another name is read by the scan, and left out with the listing's finding.
    tracks = review.entries
      .filter((e) => !opensForContent(e.file))
      .filter((e) => e.track || e.findings.some((f) => f.level === 'error'))
      .map((e) =>
        e.draft
          ? plannedTrack(e.file, e.draft, e.findings, [], e.track ?? undefined)
          : { path: e.file, track: e.track, findings: e.findings },
      );
  }
  if (csv) {
    if (args.download) {
      // Nothing is read from disk: each row with a URL and an outer_id is a track of its own.
      const drafts: DraftTrack[] = [];
      const rows = csv.table.rows.filter((row) => {
        const draft = urlRowDraft(row.cells, csv.table.header, csv.mapping);
        if (draft) drafts.push(draft);
        return !draft;
      });
      const validation = validateLibrary(drafts);
      drafts.forEach((draft, i) => {
        tracks.push({ track: draftToTrack(draft), findings: [...validation.tracks[i]!] });
      });
      findings.push(...albumFindings(validation.albums));
      merged = mergeCsv([], { header: csv.table.header, rows }, csv.mapping);
    }
    if (merged) findings.push(...mergeFindings(merged, csv.name));
  }
  return { files, tracks, findings, reads };
}
