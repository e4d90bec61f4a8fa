/**
 * What reading one file gives, the same for the renderer's workers and the CLI: a draft or
 * nothing, and findings. Corrupt, empty and unsupported files become findings, never stops.
 */
import type { IAudioMetadata } from 'music-metadata';

import type { AlbumsReview } from './album-review.js';
import { fileKind, unsupportedAudioMessage } from './audio-formats.js';
import type { AudioProperties } from './audio-properties.js';
import { draftToTrack, type TrackBody } from './ingestion-body.js';
import { assignOuterIds, type OuterIdStrategy } from './outer-id.js';
import type { DraftTrack, Finding } from './track.js';
import { validateLibrary } from './validate.js';

/** The outcome of reading one file. */
export interface FileReadResult {
  /** Path relative to the scanned folder, forward slashes, NFC. */
  file: string;
  draft: DraftTrack | null;
  findings: Finding[];
  /** The master's QC properties (a file read as audio). */
  audio?: AudioProperties;
}

/** Result for a file that is not read: not audio, unsupported audio or empty; null to read it. */
export function precheckFile(file: string, size: number): FileReadResult | null {
  const kind = fileKind(file);
  if (kind === 'hidden') {
    return {
      file,
      draft: null,
      findings: [
        { level: 'warning', message: "ignored: a hidden file (its name starts with '.')" },
      ],
    };
  }
  if (kind === 'ignored') {
    return {
      file,
      draft: null,
      findings: [{ level: 'warning', message: 'ignored: not an audio file' }],
    };
  }
  if (kind === 'unsupported-audio') {
    return {
      file,
      draft: null,
      findings: [
        {
          level: 'error',
          message: unsupportedAudioMessage,
        },
      ],
    };
  }
  if (size === 0) {
    return { file, draft: null, findings: [{ level: 'error', message: 'empty file (0 bytes)' }] };
  }
  return null;
}

/** The finding for a file music-metadata could not read. */
export function readFailure(file: string, error: unknown): FileReadResult {
  const raw = error instanceof Error ? error.message : String(error);
  // music-metadata appends the absolute path to some messages; the user knows which file.
  const stripped = raw.replace(/:\s*\/.*$/, '').trim();
  // A parser's own words ("pageConsumer should be initialized", "Offset is outside the bounds
  // of the DataView") mean nothing to a user: they are said plainly.
  const internal =
    /\b[a-z]+[A-Z]\w*\b|DataView|bounds|\bundefined\b|\bnull\b|Error\b|should be/.test(stripped);
  const message = !stripped || internal ? 'its structure could not be followed' : stripped;
  return {
    file,
    draft: null,
    findings: [
      {
        level: 'error',
        message: `cannot read the file (corrupt, truncated or not really audio): ${message}`,
      },
    ],
  };
}

/** One element of `courier scan --json` (and the grid's row before edits). */
export interface ScanEntry {
  file: string;
  track: TrackBody | null;
  findings: Finding[];
  /** The master's QC properties (a file read as audio). */
  audio?: AudioProperties;
}

/**
 * Assigns outer_ids across the delivery, applies `edit` (a metadata CSV, one draft per draft),
 * validates it, and merges read and validation findings.
 */
export function finishScan(
  results: FileReadResult[],
  strategy: OuterIdStrategy = { kind: 'default' },
  edit?: (drafts: DraftTrack[]) => DraftTrack[],
): ScanEntry[] {
  return finishScanDrafts(results, strategy, edit).map(({ draft: _, ...entry }) => entry);
}

/** `finishScan`, each entry with the draft it was built from (a planned track needs it). */
export function finishScanDrafts(
  results: FileReadResult[],
  strategy: OuterIdStrategy = { kind: 'default' },
  edit?: (drafts: DraftTrack[]) => DraftTrack[],
): Array<ScanEntry & { draft?: DraftTrack }> {
  return finishScanReview(results, strategy, edit).entries;
}

/** `finishScanDrafts` with the delivery's albums as reviewed (`album-review.ts`). */
export function finishScanReview(
  results: FileReadResult[],
  strategy: OuterIdStrategy = { kind: 'default' },
  edit?: (drafts: DraftTrack[]) => DraftTrack[],
): {
  entries: Array<ScanEntry & { draft?: DraftTrack }>;
  albums: AlbumsReview;
  drafts: DraftTrack[];
} {
  const readable = results.filter((r) => r.draft !== null);
  const assigned = assignOuterIds(
    readable.map((r) => r.draft!),
    strategy,
  );
  const drafts = edit ? edit(assigned) : assigned;
  const { tracks: validation, albums } = validateLibrary(drafts);
  const byResult = new Map(readable.map((r, i) => [r, i] as const));
  const entries = results.map((result) => {
    const i = byResult.get(result);
    const audio = result.audio ? { audio: result.audio } : {};
    if (i === undefined)
      return { file: result.file, track: null, findings: result.findings, ...audio };
    return {
      file: result.file,
      track: draftToTrack(drafts[i]!),
      findings: [...result.findings, ...validation[i]!],
      ...audio,
      draft: drafts[i]!,
    };
  });
  return { entries, albums, drafts };
}

/** Matroska's track type of a video track (music-metadata's `TrackType.video`). */
const matroskaVideoTrack = 1;

/** music-metadata warnings that mean the audio is cut short or damaged (others, such as ID3 padding, are noise). */
const damageWarnings = [/exceeding file length/i, /end-of-stream reached/i, /corrupt ogg/i];

/**
 * The result for a file music-metadata parsed: the draft, or an error when no audio was found;
 * `damaged` when the parser saw the audio cut short (what the file's structure says decides:
 * `read-audio.ts`).
 */
export function parsedResult(
  file: string,
  meta: IAudioMetadata,
  /** Builds the draft; what it finds worth saying about the tags goes into `notes`. */
  draft: (notes: Finding[]) => DraftTrack,
): FileReadResult & { damaged?: boolean } {
  const { format } = meta;
  // Monkey's Audio, Musepack SV8 and DSF name no codec: their rate and channels show the audio.
  const audio = format.codec || (format.sampleRate && format.numberOfChannels);
  if (!format.container || !audio || format.hasAudio === false) {
    return {
      file,
      draft: null,
      findings: [
        {
          level: 'error',
          message: 'no audio found in the file (corrupt, truncated or not really audio)',
        },
      ],
    };
  }
  const findings: Finding[] = [];
  // Matroska (.mkv, .webm) holds video as often as audio: its sound track is not a master.
  if (format.trackInfo?.some((t) => t.type === matroskaVideoTrack || t.video !== undefined)) {
    findings.push({
      level: 'error',
      message: 'a video file (it has a picture track): deliver the audio master instead',
    });
  }
  const damaged = meta.quality.warnings.some((w) =>
    damageWarnings.some((re) => re.test(w.message)),
  );
  return { file, draft: draft(findings), findings, ...(damaged ? { damaged } : {}) };
}
