/**
 * The app's half of planning: the files the user granted and the tracks they reviewed in the
 * library, turned into what `planDelivery` takes. The CLI reads the tags itself (`prepare.ts`);
 * the app sends exactly what the user saw, validated again here with the same core rules.
 */
import { basename, dirname, join } from 'node:path';

import { albumFindings } from '../model/album-review.js';
import { albumOf } from '../model/albums.js';
import type { DraftTrack } from '../model/track.js';
import { showControls } from '../model/user-text.js';
import { validateLibrary } from '../model/validate.js';
import { withFields } from '../objects.js';
import type { LeftOutTrack } from './catalog-changes.js';
import type { MasterRead } from './masters-check.js';
import { type LocalFile, type PlanFinding, type PlannedTrack, plannedTrack } from './plan.js';

/** One granted file of the library, with its reviewed draft (json mode). */
export interface LibraryFile {
  /** The grant id (kept so findings can point back at the row). */
  id: string;
  /** Where the file is on disk (from the grant, never from the renderer). */
  localPath: string;
  /** As the user dropped it: `Album/CD1/01.flac`. */
  relativePath: string;
  size: number;
  /** When the file was modified as granted (its tags were read then). */
  mtimeMs?: number;
  draft?: DraftTrack;
  /** Left out of this delivery by the user: not planned nor validated, only counted. */
  excluded?: boolean;
  /** Body fields the user removed in review (`clearedFields`): not kept from before. */
  cleared?: string[];
  /** Why the file can't be delivered (`unusableReason`): left out, and said so. */
  unusable?: string;
}

/** What a plan needs, and how to find a file's grant id from a plan path. */
export interface LibraryInput {
  /** The folder the delivery is named after (the dropped folder when there is one). */
  dir: string;
  files: LocalFile[];
  tracks: PlannedTrack[];
  idOfPath: Map<string, string>;
  /** The files the user excluded, and those that can't be delivered (skipped, with why). */
  excluded: LeftOutTrack[];
  /** Where every file of the library is on disk, excluded ones too. */
  localPaths: Set<string>;
  /** What is said of whole albums (gaps, tracks that disagree), once per album. */
  findings: PlanFinding[];
}

/**
 * Files and tracks relative to one root: when every file sits under the same dropped folder,
 * that folder is the root (as `courier deliver DIR` would see it), else the folder holding them.
 */
export function libraryInput(files: LibraryFile[], withTracks: boolean): LibraryInput {
  const first = files[0];
  const heads = new Set(
    files.map((f) => (f.relativePath.includes('/') ? f.relativePath.split('/')[0] : '')),
  );
  const common = heads.size === 1 && !heads.has('') ? [...heads][0]! : '';
  const strip = (path: string) => (common ? path.slice(common.length + 1) : path);
  // The folder the user dropped from: the file's path minus its relative path.
  const base = !first
    ? ''
    : first.localPath.replaceAll('\\', '/').endsWith(`/${first.relativePath}`)
      ? dirname(`${first.localPath.slice(0, first.localPath.length - first.relativePath.length)}x`)
      : dirname(first.localPath);
  const dir = first ? (common ? join(base, common) : base) : 'library';
  const idOfPath = new Map<string, string>();
  const localPaths = new Set(files.filter((f) => f.localPath).map((f) => f.localPath));
  const excluded: LeftOutTrack[] = [];
  const included: LibraryFile[] = [];
  for (const f of files) {
    const path = strip(f.relativePath.normalize('NFC'));
    idOfPath.set(path, f.id);
    if (!f.excluded && f.unusable === undefined) {
      included.push(f);
      continue;
    }
    const draft = f.draft ? withFields(f.draft, { file: path }) : { file: path };
    excluded.push({
      path,
      outer_id: draft.outerId?.value.trim() || basename(path),
      album: albumOf(draft).label,
      ...(f.unusable === undefined
        ? { state: 'excluded' as const }
        : { state: 'skipped' as const, reason: f.unusable }),
    });
  }
  const local: LocalFile[] = included.map((f) => ({
    path: strip(f.relativePath.normalize('NFC')),
    localPath: f.localPath,
    size: f.size,
    ...(f.mtimeMs !== undefined ? { mtimeMs: f.mtimeMs } : {}),
  }));
  const input = { dir, files: local, idOfPath, excluded, localPaths };
  if (!withTracks) return { ...input, tracks: [], findings: [] };
  const drafts: DraftTrack[] = included.map((f, i) =>
    withFields(f.draft ?? { file: local[i]!.path }, { file: local[i]!.path }),
  );
  const validation = validateLibrary(drafts);
  const tracks = drafts.map((draft, i) =>
    plannedTrack(local[i]!.path, draft, [...(validation.tracks[i] ?? [])], included[i]!.cleared),
  );
  return { ...input, tracks, findings: albumFindings(validation.albums) };
}

/** Why a library file is left out when the renderer found it gone since it was added. */
export const GONE_REASON = 'is gone or changed since it was added (add it again to deliver it)';

/**
 * Why a file of the library can't be delivered, from main's own read of it, or undefined when it
 * can: an empty file, or one that isn't audio Courier reads.
 */
export function unusableReason(size: number, read: MasterRead | undefined): string | undefined {
  if (size === 0) return 'is empty (0 bytes)';
  if (!read || read.readAsAudio) return undefined;
  const why = read.findings.find((f) => f.level === 'error') ?? read.findings[0];
  return why ? `can't be delivered: ${why.message}` : "can't be read as audio";
}

/** How many of a line's left-out files it names before "and N more". */
const NAMED = 5;

/**
 * The pre-flight's line about library files that are not delivered and why, e.g.
 * "1 file left out: Album/03 Empty.mp3 is empty (0 bytes)"; undefined when none is.
 */
export function leftOutFilesLine(
  left: ReadonlyArray<{ path: string; reason?: string }>,
): string | undefined {
  const skipped = left.filter((t) => t.reason !== undefined);
  if (skipped.length === 0) return undefined;
  const named = skipped.slice(0, NAMED).map((t) => `${showControls(t.path)} ${t.reason}`);
  const more = skipped.length > NAMED ? `; and ${skipped.length - NAMED} more` : '';
  return `${skipped.length} file${skipped.length === 1 ? '' : 's'} left out: ${named.join('; ')}${more}`;
}
