/**
 * Artist strings that look like several artists ("A feat. B", "A; B", "A/B"). Courier offers the
 * split to the user and never applies it silently: "Earth, Wind & Fire" is one artist.
 */
import type { DraftArtist } from './track.js';

/** The role given to artists found after "feat."/"ft."/"featuring". */
export const featuredRole = 'Featured';

const featuring = /\s+(?:feat\.?|ft\.?|featuring)\s+/i;
// ";" lists names; "/" is how ID3v2.3 joins several artists (but "AC/DC" is one: hence an offer).
const listSeparator = /\s*[;/]\s*/;

/** The artists a combined string probably stands for, or null when it looks like one artist. */
export function suggestArtistSplit(name: string, role: string): DraftArtist[] | null {
  const [main, ...rest] = name.split(featuring);
  const mainNames = (main ?? '')
    .split(listSeparator)
    .map((s) => s.trim())
    .filter(Boolean);
  const featured = rest
    .flatMap((part) => part.split(listSeparator))
    .map((s) => s.trim())
    .filter(Boolean);
  if (mainNames.length + featured.length < 2) return null;
  return [
    ...mainNames.map((n) => ({ name: n, role })),
    ...featured.map((n) => ({ name: n, role: featuredRole })),
  ];
}
