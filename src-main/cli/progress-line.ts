/**
 * Progress on stderr for the commands that read or send many bytes: sizes in MiB, and one line
 * redrawn in place on a terminal (io.err ends every line, so a redraw moves up one line and
 * clears it), at most ten times a second.
 */
import { speedAndEta as transferSpeed } from '../core/model/transfer-status.js';
import type { ProgressSnapshot } from '../core/storage/progress.js';
import type { CliIO } from './command.js';

/** A byte count in MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A bar of `width` characters, filled by `share` (0 to 1). */
export function progressBar(share: number, width = 30): string {
  return '#'.repeat(Math.round(Math.min(1, Math.max(0, share)) * width)).padEnd(width, '.');
}

/** Draws a line in place of the last one drawn; `final` draws it whatever the time. */
export function redrawnLine(io: CliIO): (text: string, final?: boolean) => void {
  let drawn = false;
  let last = 0;
  return (text, final = false) => {
    const now = Date.now();
    if (!final && drawn && now - last < 100) return;
    last = now;
    io.err(`${drawn ? '\x1b[1A\x1b[2K' : ''}${text}`);
    drawn = true;
  };
}

/** The transfer's speed and ETA in MiB (core's rule: `estimating…` until it is known). */
export function speedAndEta(
  progress: Pick<ProgressSnapshot, 'bytesPerSecond' | 'etaSeconds'>,
): string {
  return transferSpeed(progress, mib);
}
