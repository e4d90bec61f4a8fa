/**
 * A track's artists as one line of text with their roles, the grid's Artists column:
 * "Aurora Vale; Lena Park · feat. Nils Berg · prod. Ida Lund · Composer: Mara Lind". Main artists
 * come first with no mark, then each other role in the order the track lists it: Featured as
 * "feat.", Producer as "prod.", any other role by its name and ":". Names of one role are joined
 * by "; " (as in every cell), roles by " · ". The album artist has a column of its own and is
 * left out (and left alone when the line is written back). The line reads back to the same
 * artists, so the cell can be edited, pasted and filled like any other; an artist kept keeps
 * its id.
 */
import { featuredRole } from './artists.js';
import { artistRoles } from './tags-to-track.js';
import type { DraftArtist, DraftTrack, ValueSource } from './track.js';

/** The short marks of roles that have one; any other role is written "Role: ". */
const marks: Record<string, string> = { [featuredRole]: 'feat.', Producer: 'prod.' };
const roleOfMark = new Map(Object.entries(marks).map(([role, mark]) => [mark, role]));
const roleSeparator = ' · ';

/** Whether an artist shows in the credit line (the album artist has its own column). */
const credited = (a: DraftArtist) => a.role !== artistRoles.albumArtist;

/** The credit line of a track's artists (the grid's Artists column). */
export function artistCreditText(draft: DraftTrack): string {
  const byRole = new Map<string, string[]>([[artistRoles.main, []]]);
  for (const artist of draft.artists?.value ?? []) {
    if (!credited(artist)) continue;
    const names = byRole.get(artist.role) ?? [];
    names.push(artist.name);
    byRole.set(artist.role, names);
  }
  const parts: string[] = [];
  for (const [role, names] of byRole) {
    const list = names.join('; ');
    if (role === artistRoles.main) parts.push(list);
    else if (names.length > 0)
      parts.push(marks[role] ? `${marks[role]} ${list}` : `${role}: ${list}`);
  }
  // With no main artist the line starts with the separator, so a role is never read as a name.
  return parts.length === 1 ? parts[0]! : parts.join(roleSeparator).trimStart();
}

/** The artists a credit line names, in its order (album artists are not part of it). */
export function parseArtistCredit(text: string): DraftArtist[] {
  const artists: DraftArtist[] = [];
  const add = (names: string, role: string) => {
    for (const name of names.split(';').map((n) => n.trim()))
      if (name) artists.push({ name, role });
  };
  text.split('·').forEach((segment, i) => {
    const part = segment.trim();
    if (!part) return;
    if (i === 0) return add(part, artistRoles.main);
    const mark = /^(\S+\.)\s*(.*)$/.exec(part);
    const markedRole = mark ? roleOfMark.get(mark[1]!.toLowerCase()) : undefined;
    if (markedRole) return add(mark![2]!, markedRole);
    const colon = part.indexOf(':');
    if (colon > 0) return add(part.slice(colon + 1), part.slice(0, colon).trim());
    add(part, artistRoles.main);
  });
  return artists;
}

/**
 * The draft with its credited artists replaced by those a credit line names (an artist named
 * again in the same role keeps its id); album artists stay as they were. Never mutates `draft`.
 */
export function withArtistCredit(draft: DraftTrack, text: string, source: ValueSource): DraftTrack {
  const current = draft.artists?.value ?? [];
  if (text.trim() === artistCreditText(draft).trim()) return draft;
  const given = parseArtistCredit(text).map(
    (a) => current.find((c) => c.role === a.role && c.name === a.name) ?? a,
  );
  const value = [...given, ...current.filter((a) => !credited(a))];
  const next: DraftTrack = { ...draft };
  if (value.length > 0) next.artists = { value, source };
  else delete next.artists;
  return next;
}
