/**
 * Artist credits that look like several artists ("Jay-Z feat. Alicia Keys", "Björk; Thom Yorke",
 * "Beth Hart & Joe Bonamassa"), the split Courier offers for them, and applying it on the user's
 * word. Courier never splits silently, and offers a split only where it is likely:
 *
 * 1. A featuring mark ("feat.", "feat", "ft.", "ft", "featuring", bare or in brackets) always
 *    separates artists; the names after it are Featured. "with" is no mark: it joins one act as
 *    often as two ("Bob Marley with the Wailers", "Ella Fitzgerald with the Chick Webb Orchestra").
 * 2. ";" always lists names (the grid's own separator, and many taggers').
 * 3. A collaboration mark (" x ", " vs ", " vs. ", " / ") separates artists when no part after the
 *    first is a backing band (below) and at least one part is a name of its own (below): "Daft
 *    Punk x Pharrell" is two; "Spy vs Spy" is a band.
 * 4. A join (" & ", " and ", " + ", ", ") separates artists only when every part is a name of its
 *    own and no part after the first is a backing band: "Beth Hart & Joe Bonamassa" is two;
 *    "Earth, Wind & Fire", "Crosby, Stills, Nash & Young", "Simon & Garfunkel", "Mumford & Sons"
 *    are acts named after their members or things, whose parts are no artist's name ("Simon" is
 *    not Paul Simon), so a catalog keeps them whole; "Tyler, The Creator" and "Bonamassa, Joe"
 *    are one name too.
 * 5. A bare "/" or "&" (no spaces) is part of a name: "AC/DC", "AC/DC/Bon Scott", "AT&T". Only
 *    where the tag family joins several values with "/" (ID3v2.3 and 2.2 text frames, which the
 *    reader keeps whole) is a bare "/" a join (rule 4): "Beth Hart/Joe Bonamassa" is two there,
 *    "AC/DC" and "AC/DC/Bon Scott" stay one ("AC" is no name of its own).
 *
 * A part is a name of its own when it has two words or more ("Dua Lipa", "Dr. Dre"), or when the
 * library credits it as one artist elsewhere ("Jay-Z" in "Jay-Z & Alicia Keys", given a track by
 * Jay-Z, or one where a split was applied). A backing band is a part starting with "the", "his", "her" or "their" ("Nick Cave & The
 * Bad Seeds", "Florence + the Machine", "Duke Ellington and His Orchestra"). A credit that a
 * track lists whole beside other artists of its role (Picard's ARTISTS "Earth, Wind & Fire",
 * "The Emotions") is one name to that tagger: rules 3 and 4 leave it whole everywhere.
 */
import { finish, Pace, type Steps } from './steps.js';
import type { ArtistSplitFix, DraftArtist, DraftTrack, ValueSource } from './track.js';

/** The role given to artists found after "feat."/"ft."/"featuring". */
export const featuredRole = 'Featured';

/** What the library says about names: which are credited on their own, which kept whole. */
export interface ArtistEvidence {
  /** Every name the library credits as one artist, in any role (lower case). */
  known: ReadonlySet<string>;
  /** Names credited whole beside other artists of the same role on one track (lower case). */
  kept: ReadonlySet<string>;
}

const noEvidence: ArtistEvidence = { known: new Set(), kept: new Set() };

/** What a credit is read against. */
export interface SplitContext {
  /** What the rest of the library says about names (none by default). */
  evidence?: ArtistEvidence;
  /** The credit comes from a tag family that joins values with "/" (rule 5). */
  slashJoins?: boolean;
}

/** The evidence the library's credits give about names (rules 3 and 4). */
export function artistEvidence(drafts: readonly DraftTrack[]): ArtistEvidence {
  return finish(artistEvidenceSteps(drafts));
}

/** `artistEvidence`, as steps (`steps.ts`). */
export function* artistEvidenceSteps(drafts: readonly DraftTrack[]): Steps<ArtistEvidence> {
  const known = new Set<string>();
  const kept = new Set<string>();
  const pace = new Pace();
  for (let i = 0; i < drafts.length; i++) {
    const artists = drafts[i]!.artists?.value ?? [];
    for (const artist of artists) {
      const name = artist.name.trim().toLowerCase();
      known.add(name);
      if (artists.some((other) => other !== artist && other.role === artist.role)) kept.add(name);
    }
    if (pace.step()) yield;
  }
  return { known, kept };
}

const featuringMark = /\s+(?:feat\.?|ft\.?|featuring)\s+/i;
const bracketedFeaturing = /\s*[([]\s*(?:feat\.?|ft\.?|featuring)\s+([^)\]]+)[)\]]/gi;
const listMark = /\s*;\s*/;
const collaborationMark = /\s+(?:x|vs\.?|\/)\s+/i;
const joinMark = /\s+(?:&|and|\+)\s+|\s*,\s+/i;
const joinOrSlash = /\s+(?:&|and|\+)\s+|\s*,\s+|\//i;
const backingBand = /^(?:the|his|her|their)\s/i;

const pieces = (text: string, mark: RegExp) =>
  text
    .split(mark)
    .map((s) => s.trim())
    .filter(Boolean);

/** Splits `text` at `mark` when `likely` holds for the parts; otherwise keeps it whole. */
function splitIf(
  text: string,
  mark: RegExp,
  likely: (parts: string[]) => boolean,
  evidence: ArtistEvidence,
): string[] {
  const parts = pieces(text, mark);
  if (parts.length < 2 || evidence.kept.has(text.toLowerCase())) return [text];
  if (parts.slice(1).some((part) => backingBand.test(part))) return [text];
  return likely(parts) ? parts : [text];
}

/** Any mark a split can be made at (a superset of the marks above), in any case. */
const anyMark = /[;&+,/([]|\s(?:x|vs|and|feat|ft|featuring)\b/i;

/**
 * Whether some evidence could make `suggestArtistSplit` offer a split of `name`: false for a
 * credit without any mark, which is one artist whatever the library says.
 */
export function mightSplit(name: string): boolean {
  return anyMark.test(name);
}

/** The names one credit (without featuring marks) stands for, by rules 2 to 5. */
function namesIn(credit: string, evidence: ArtistEvidence, slashJoins: boolean): string[] {
  const ownName = (part: string) => /\S\s+\S/.test(part) || evidence.known.has(part.toLowerCase());
  const join = slashJoins ? joinOrSlash : joinMark;
  return pieces(credit, listMark)
    .flatMap((name) => splitIf(name, collaborationMark, (parts) => parts.some(ownName), evidence))
    .flatMap((name) => splitIf(name, join, (parts) => parts.every(ownName), evidence));
}

/**
 * The artists a combined credit is likely to stand for (the rules above), or null when it
 * looks like one artist.
 */
export function suggestArtistSplit(
  name: string,
  role: string,
  { evidence = noEvidence, slashJoins = false }: SplitContext = {},
): DraftArtist[] | null {
  const [main = '', ...featured] = name
    .replace(bracketedFeaturing, ' feat. $1')
    .split(featuringMark);
  const split: DraftArtist[] = [];
  const seen = new Set<string>();
  const add = (names: string[], as: string) => {
    for (const n of names) {
      const key = n.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      split.push({ name: n, role: as });
    }
  };
  add(namesIn(main.trim(), evidence, slashJoins), role);
  for (const part of featured) add(namesIn(part.trim(), evidence, slashJoins), featuredRole);
  return split.length >= 2 ? split : null;
}

const manual: ValueSource = { kind: 'manual' };

/**
 * The draft with the offered splits applied (each replaces the artist it names by its parts; a
 * part the track already credits in that role is not added twice), the artists sourced as the
 * user's. A fix whose artist is no longer there (the draft changed since) is skipped.
 */
export function applyArtistSplits(draft: DraftTrack, fixes: readonly ArtistSplitFix[]): DraftTrack {
  const current = draft.artists?.value ?? [];
  const byIndex = new Map(
    fixes.filter((fix) => current[fix.index]?.name === fix.name).map((fix) => [fix.index, fix]),
  );
  if (byIndex.size === 0) return draft;
  const key = (a: DraftArtist) => `${a.role}\u0000${a.name.toLowerCase()}`;
  const kept = new Set(current.filter((_, i) => !byIndex.has(i)).map(key));
  const value: DraftArtist[] = [];
  current.forEach((artist, i) => {
    const fix = byIndex.get(i);
    if (!fix) {
      value.push(artist);
      return;
    }
    for (const part of fix.into) {
      if (kept.has(key(part))) continue;
      kept.add(key(part));
      value.push({ name: part.name, role: part.role });
    }
  });
  return { ...draft, artists: { value, source: manual } };
}

/** The draft with one offered split applied (`applyArtistSplits`). */
export function applyArtistSplit(draft: DraftTrack, fix: ArtistSplitFix): DraftTrack {
  return applyArtistSplits(draft, [fix]);
}
