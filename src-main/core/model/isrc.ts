/** ISRC: International Standard Recording Code (ISO 3901), e.g. GB-AYE-06-01498. */

const isrcPattern = /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/;

/**
 * Upper-cases and strips spaces, hyphens, dots and a leading "ISRC" label — a label only where
 * it is one ("ISRC: GB…", "ISRCGBAYE2100101"): "ISRC17607839" is an Icelandic ISRC and "isrc1"
 * a placeholder, both kept as written.
 */
export function normalizeIsrc(raw: string): string {
  const s = raw
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s\-_.]/g, '');
  const label = /^ISRC[:=]?/.exec(s)?.[0];
  if (!label) return s;
  const rest = s.slice(label.length);
  return label.length > 4 || (isrcPattern.test(rest) && !isrcPattern.test(s)) ? rest : s;
}

/** Whether an already normalised ISRC has the ISO 3901 shape. */
export function isValidIsrc(normalized: string): boolean {
  return isrcPattern.test(normalized);
}
