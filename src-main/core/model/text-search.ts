/**
 * How a typed search matches text a person wrote (titles, file names): whatever the case, and
 * whatever Unicode form either side is in (composed or decomposed accents, full-width letters,
 * ligatures). Accents still count: "Café" is not "Cafe". Pure: the renderer may bundle it.
 */

/**
 * Text folded for comparison: NFKC, then lower-, upper- and lower-cased again, which gives the
 * full case folding JavaScript lacks ("ß", "ẞ" and "SS" all fold to "ss"); a final sigma is a
 * sigma, as Unicode's folding has it.
 */
export function foldForSearch(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .normalize('NFKC');
}

/** Whether `text` contains an already folded `needle`, in any case and Unicode form. */
export function containsFolded(text: string | undefined, needle: string): boolean {
  return text !== undefined && needle !== '' && foldForSearch(text).includes(needle);
}
