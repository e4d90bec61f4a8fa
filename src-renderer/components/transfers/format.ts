/** Formatting shared by the transfer and history screens. */

/** Bytes in a human unit (KiB, MiB…). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Seconds as `1 h 02 min`, `3 min 05 s` or `12 s`: one rule with the CLI's progress line. */
export { formatDuration } from '../../../src-main/core/model/transfer-status.js';
