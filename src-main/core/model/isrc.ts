/** ISRC: International Standard Recording Code (ISO 3901), e.g. GB-AYE-06-01498. */

const isrcPattern = /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/;

/** Upper-cases and strips spaces, hyphens, dots and a leading "ISRC" label. */
export function normalizeIsrc(raw: string): string {
  let s = raw
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s\-_.]/g, '');
  if (s.startsWith('ISRC')) s = s.slice(4).replace(/^[:=]/, '');
  return s;
}

/** Whether an already normalised ISRC has the ISO 3901 shape. */
export function isValidIsrc(normalized: string): boolean {
  return isrcPattern.test(normalized);
}
