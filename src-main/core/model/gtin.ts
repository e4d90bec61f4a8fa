/**
 * UPC-A (12 digits) and EAN-13 (13 digits) with their GS1 check digit. A UPC-A `x` and the
 * EAN-13 `0x` name one product (GS1 pads with zeros; the check digit is the same), so codes are
 * compared by `gtinKey`. A spreadsheet that reads a code as a number drops its leading zeros
 * (`0012345678905` → `12345678905`) and shows long ones as `1.23457E+12`; the problems below say so.
 */

/** Strips spaces and hyphens (barcodes are often written 0 12345 67890 5). */
export function normalizeGtin(raw: string): string {
  return raw.normalize('NFKC').replace(/[\s-]/g, '');
}

/** The GS1 check digit for the digits before it (weights 3,1,3,... from the right). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/** A code as compared: digits zero-padded to 13, so a UPC-A and its EAN-13 form are equal. */
export function gtinKey(raw: string): string {
  const normalized = normalizeGtin(raw);
  return /^\d{1,13}$/.test(normalized) ? normalized.padStart(13, '0') : normalized;
}

/** Whether two UPC/EAN texts name the same product (leading zeros aside). */
export function sameGtin(a: string, b: string): boolean {
  return gtinKey(a) === gtinKey(b);
}

/** Why a normalised UPC/EAN is not acceptable, or null when it is. */
export function gtinProblem(normalized: string): string | null {
  if (/^\d+([.,]\d+)?E\+?\d+$/i.test(normalized)) {
    return 'is a number a spreadsheet rounded to scientific notation, its digits lost; type the column as text (or use .xlsx) and export again';
  }
  if (!/^\d+$/.test(normalized)) return 'has characters other than digits';
  if (normalized.length < 12 && gs1Valid(normalized.padStart(12, '0'))) {
    return `has ${normalized.length} digits: a spreadsheet that read it as a number dropped its leading zero${normalized.length < 11 ? 's' : ''}; the UPC is ${normalized.padStart(12, '0')} (type the column as text, or use .xlsx)`;
  }
  if (normalized.length !== 12 && normalized.length !== 13) {
    return `has ${normalized.length} digits; a UPC has 12 and an EAN 13`;
  }
  const expected = gs1CheckDigit(normalized.slice(0, -1));
  const actual = Number(normalized.slice(-1));
  if (expected !== actual) return `check digit is ${actual}, expected ${expected}`;
  return null;
}

function gs1Valid(digits: string): boolean {
  return gs1CheckDigit(digits.slice(0, -1)) === Number(digits.slice(-1));
}
