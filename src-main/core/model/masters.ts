/**
 * What a master's QC says to the user, the one rule for the CLI's scan and plan, the
 * renderer's workers and main's check of the app's files: a master cut short is a blocking
 * error that says where it ends, unless under a tenth of a second is missing or the label accepted
 * the file as it is (a per-track override, kept with the track).
 */
import { formatDuration } from './audio-properties.js';
import type { Integrity } from './integrity.js';
import type { Finding } from './track.js';

/** Marks the finding a per-track override can accept. */
export const cutShortCode = 'cut-short';

/** Less than this missing at the end is worth a warning only (a few frames' worth). */
const negligibleSeconds = 0.1;

/** "1:42.3" below ten minutes' precision matters: tenths where a whole second would hide it. */
function at(seconds: number): string {
  const whole = formatDuration(seconds);
  const tenths = Math.floor((seconds % 1) * 10);
  return seconds < 60 ? `${whole}.${tenths}` : whole;
}

/** The finding for a master whose structure says it is cut short; null for a whole one. */
export function integrityFinding(integrity: Integrity): Finding | null {
  if (integrity.state !== 'cut-short') return null;
  const { endsAt, length } = integrity;
  const where =
    endsAt !== undefined && length !== undefined
      ? `: it ends at ${at(endsAt)} of ${at(length)}`
      : endsAt !== undefined
        ? `: it ends at ${at(endsAt)}, and its full length is not recorded in it`
        : '';
  const negligible =
    endsAt !== undefined && length !== undefined && length - endsAt < negligibleSeconds;
  return {
    level: negligible ? 'warning' : 'error',
    code: cutShortCode,
    message: `the master is cut short${where} (${integrity.detail ?? 'damaged'})`,
  };
}

/**
 * The warning for a whole master whose file was cut after its audio (`cutAfterAudio`): nothing
 * to block, but the tags that chunk held are lost, which is why the track may show none.
 */
export function cutAfterAudioFinding(integrity: Integrity): Finding | null {
  const chunk = integrity.cutAfterAudio?.trim();
  if (!chunk) return null;
  return {
    level: 'warning',
    message: `the file is cut short after its audio, which is whole: it ends inside its '${chunk}' chunk, so what that chunk held (tags, mostly) is lost; a copy of the master from its source restores it`,
  };
}

/** A cut-short finding for a file music-metadata saw damaged where its structure was not checked. */
export function damagedFinding(): Finding {
  return {
    level: 'error',
    code: cutShortCode,
    message: 'the master seems cut short or damaged: its audio ends before its header says',
  };
}

/** Findings with a cut-short error turned into a warning when the label accepted the file. */
export function withAcceptance(findings: Finding[], accepted: boolean | undefined): Finding[] {
  if (!accepted) return findings;
  return findings.map((f) =>
    f.code === cutShortCode && f.level === 'error'
      ? { ...f, level: 'warning', message: `${f.message}; accepted as it is` }
      : f,
  );
}
