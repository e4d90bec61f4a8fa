/** UPC-A (12 digits) and EAN-13 (13 digits) with their GS1 check digit. */

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

/** Why a normalised UPC/EAN is not acceptable, or null when it is. */
export function gtinProblem(normalized: string): string | null {
  if (!/^\d+$/.test(normalized)) return 'has characters other than digits';
  if (normalized.length !== 12 && normalized.length !== 13) {
    return `has ${normalized.length} digits; a UPC has 12 and an EAN 13`;
  }
  const expected = gs1CheckDigit(normalized.slice(0, -1));
  const actual = Number(normalized.slice(-1));
  if (expected !== actual) return `check digit is ${actual}, expected ${expected}`;
  return null;
}
