/**
 * The masters check of a plan, the same for `courier deliver DIR` and the app's library: each
 * file as main reads it now (never as a renderer says it is), a master cut short blocking unless
 * the label accepted it, and the profile's masters rules. In audio_only and audio_mapping modes
 * a file not recognised as audio is a warning: its tags are not used, and the service decides.
 */
import type { AudioProperties } from '../model/audio-properties.js';
import { checkRules, type DeliveryRules } from '../model/delivery-rules.js';
import { cutShortCode, withAcceptance } from '../model/masters.js';
import type { FileReadResult } from '../model/read-result.js';
import type { Finding } from '../model/track.js';
import { withFields } from '../objects.js';
import { readFilesKeepingReads } from '../tags/read-cache.js';
import { scanFiles } from '../tags/scan-folder.js';
import type { DeliveryMode } from './delivery-record.js';
import type { LocalFile, PlanFinding, PlannedTrack } from './plan.js';

/**
 * What the check keeps of a file's read: whether it was read as audio, what reading found and
 * the audio's properties. Not its draft: a plan holds its tracks already, and a draft kept for
 * each of 100,000 files until the check held every tag value twice over.
 */
export interface MasterRead {
  readAsAudio: boolean;
  findings: Finding[];
  audio?: AudioProperties;
}

/** The part of a read the masters check keeps. */
export function masterRead(read: FileReadResult): MasterRead {
  return {
    readAsAudio: read.draft !== null,
    findings: read.findings,
    ...(read.audio ? { audio: read.audio } : {}),
  };
}

/** What the check says about one file. */
export interface MasterCheck {
  findings: Finding[];
}

/**
 * The check of each file (by path) that it has something to say about, from what reading it
 * gave: a master that passes, and was not cut short, has no entry (most of a catalog).
 */
export function checkMasters(args: {
  files: readonly LocalFile[];
  reads: ReadonlyMap<string, MasterRead>;
  /** Paths of masters the label accepts cut short. */
  accepted: ReadonlySet<string>;
  rules: DeliveryRules;
  mode: DeliveryMode;
}): Map<string, MasterCheck> {
  const checks = new Map<string, MasterCheck>();
  for (const file of args.files) {
    const read = args.reads.get(file.path);
    // An empty file is the plan's own error (`planDelivery`).
    if (!read || file.size === 0) continue;
    const findings: Finding[] = [];
    if (!read.readAsAudio && args.mode !== 'json') {
      const why = read.findings.find((f) => f.level === 'error')?.message ?? 'unreadable';
      findings.push({ level: 'warning', message: `not recognised as audio: ${why}` });
    } else if (args.mode !== 'json') {
      // What reading found wrong with the file itself (a video, say) holds in every mode; json
      // tracks carry it already.
      findings.push(...read.findings.filter((f) => f.level === 'error' && f.code !== cutShortCode));
    }
    const cutShort = read.findings.filter((f) => f.code === cutShortCode);
    findings.push(...withAcceptance(cutShort, args.accepted.has(file.path)));
    findings.push(...checkRules(read.audio, args.rules));
    // A cut the label accepted is still the check's to say: the track's own finding goes.
    if (findings.length > 0 || cutShort.length > 0) checks.set(file.path, { findings });
  }
  return checks;
}

/** Reads the files of a plan (kept reads spare unchanged ones), by path. */
export async function readMasters(
  dir: string,
  files: readonly LocalFile[],
  /** Where reads are kept; without it every file is read. */
  reads: { dataDir: string; keep: boolean } | undefined,
  signal?: AbortSignal,
): Promise<Map<string, MasterRead>> {
  const options = signal ? { signal } : {};
  const listed = files.map((f) => withFields(f, { mtimeMs: f.mtimeMs ?? -1 }));
  const results = reads
    ? await readFilesKeepingReads(dir, listed, reads, options)
    : await scanFiles(
        dir,
        listed.map((f) => f.localPath),
        options,
      );
  const byPath = new Map<string, MasterRead>();
  results.forEach((result, i) => {
    if (result) byPath.set(files[i]!.path, masterRead(result));
  });
  return byPath;
}

/**
 * The check's findings put where a plan shows them: on each json track (in place of the cut
 * found when its tags were read, which knew nothing of the label's acceptance), else on the
 * plan with the file's path.
 */
export function applyMasterChecks(
  checks: ReadonlyMap<string, MasterCheck>,
  tracks: PlannedTrack[] | undefined,
  findings: PlanFinding[],
): { tracks: PlannedTrack[] | undefined; findings: PlanFinding[] } {
  if (tracks) {
    const placed = new Set<string>();
    const next = tracks.map((t) => {
      const check = t.path === undefined ? undefined : checks.get(t.path);
      if (!check) return t;
      placed.add(t.path!);
      const own = t.findings.filter((f) => f.code !== cutShortCode);
      // Most masters pass: their tracks stay as they are, not copied, 100,000 of them at once.
      if (check.findings.length === 0 && own.length === t.findings.length) return t;
      return withFields(t, { findings: [...own, ...check.findings] });
    });
    const rest = [...checks].filter(([path]) => !placed.has(path));
    return {
      tracks: next,
      findings: [
        ...findings,
        ...rest.flatMap(([path, c]) => c.findings.map((f) => withFields(f, { path }))),
      ],
    };
  }
  return {
    tracks,
    findings: [
      ...findings,
      ...[...checks].flatMap(([path, c]) => c.findings.map((f) => withFields(f, { path }))),
    ],
  };
}
