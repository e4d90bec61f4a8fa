/**
 * The id each artist is sent with. The service needs an id for every artist (service-interface
 * 2.4: the caller's own identifier); a label that gives none has its artist's name sent as the
 * id, so one name is one artist across deliveries. The grid, the inspector, the pre-flight and
 * the request body all read the id here, so what the user sees is what the service receives.
 */
import type { DraftArtist, DraftTrack } from './track.js';

/** The id an artist is sent with, and whether it is its name standing in for an id. */
export interface SentArtistId {
  id: string;
  fromName: boolean;
}

const clean = (value: string | undefined) => value?.normalize('NFC').trim() ?? '';

/** The id sent for this artist: its own id, else its name. */
export function sentArtistId(artist: Pick<DraftArtist, 'name' | 'id'>): SentArtistId {
  const own = clean(artist.id);
  return own ? { id: own, fromName: false } : { id: clean(artist.name), fromName: true };
}

/** Whether an artist bears this name (compared as sent: NFC, outer blanks aside). */
export function isArtistNamed(artist: Pick<DraftArtist, 'name'>, name: string): boolean {
  return clean(artist.name) === clean(name);
}

/**
 * For each artist (a name and the id it is to be sent with), how many of these tracks name that
 * artist with another id: one pass over the tracks whatever the number of artists, so the
 * inspector's "Use on N more tracks" stays cheap on a large library and a large selection.
 */
export function tracksWithOtherArtistIds(
  drafts: readonly DraftTrack[],
  artists: ReadonlyArray<Pick<DraftArtist, 'name' | 'id'>>,
): number[] {
  const byName = new Map<string, number[]>();
  artists.forEach((artist, i) => {
    const name = clean(artist.name);
    const indexes = byName.get(name);
    if (indexes) indexes.push(i);
    else byName.set(name, [i]);
  });
  const wanted = artists.map((artist) => sentArtistId(artist).id);
  const counts = artists.map(() => 0);
  // The last track counted for each artist: a track counts once, whatever its credits.
  const countedAt = artists.map(() => -1);
  drafts.forEach((draft, t) => {
    for (const artist of draft.artists?.value ?? []) {
      const indexes = byName.get(clean(artist.name));
      if (!indexes) continue;
      const sent = sentArtistId(artist).id;
      for (const i of indexes) {
        if (countedAt[i] === t || sent === wanted[i]) continue;
        countedAt[i] = t;
        counts[i]! += 1;
      }
    }
  });
  return counts;
}

/** The distinct artist names sent with their name as id, over these tracks, in first-seen order. */
export function artistsWithoutIds(drafts: readonly DraftTrack[]): string[] {
  const names = new Set<string>();
  for (const draft of drafts) {
    for (const artist of draft.artists?.value ?? []) {
      const sent = sentArtistId(artist);
      if (sent.fromName && sent.id) names.add(sent.id);
    }
  }
  return [...names];
}

/**
 * The draft with `id` on every artist of that name (any role): an artist's id names the artist,
 * not its role on one track. An empty id goes back to the name. The same draft when nothing
 * changes.
 */
export function withArtistIdByName(draft: DraftTrack, name: string, id: string): DraftTrack {
  const artists = draft.artists;
  if (!artists) return draft;
  const given = clean(id);
  let changed = false;
  const value = artists.value.map((artist) => {
    if (!isArtistNamed(artist, name) || clean(artist.id) === given) return artist;
    changed = true;
    const next = { ...artist };
    if (given) next.id = given;
    else delete next.id;
    return next;
  });
  return changed ? { ...draft, artists: { value, source: { kind: 'manual' } } } : draft;
}

/** How artists are identified in what a delivery sends: names sent as ids, the first few shown. */
export interface ArtistIdsNote {
  /** Distinct artists whose id sent is their name. */
  fromName: number;
  /** Up to five of them, for the message. */
  shown: string[];
}

/**
 * The artists of these request bodies whose id is their name (none given, or the label's own id
 * is the name): the pre-flight says so, in the app and the CLI alike. Undefined when none.
 */
export function artistIdsNote(
  tracks: Iterable<{ artists?: { id: string; name: string }[] }>,
): ArtistIdsNote | undefined {
  const names = new Set<string>();
  for (const track of tracks) {
    for (const artist of track.artists ?? []) if (artist.id === artist.name) names.add(artist.name);
  }
  if (names.size === 0) return undefined;
  return { fromName: names.size, shown: [...names].slice(0, 5) };
}

/** The pre-flight's line for an `ArtistIdsNote`. */
export function artistIdsText(note: ArtistIdsNote): string {
  const more = note.fromName > note.shown.length ? ', …' : '';
  const list = note.shown.map((name) => `"${name}"`).join(', ') + more;
  const how =
    "to send your own, set it in the Library (the inspector or the Artist ids column) or in a metadata sheet's artist_ids column";
  return note.fromName === 1
    ? `1 artist is sent with its name as its id (${list}); ${how}`
    : `${note.fromName} artists are sent with their names as their ids (${list}); ${how.replace('set it', 'set them')}`;
}

/** The pre-flight's line about artist ids for these request bodies, when any goes by name. */
export function artistIdsLine(
  tracks: Iterable<{ artists?: { id: string; name: string }[] }>,
): string | undefined {
  const note = artistIdsNote(tracks);
  return note && artistIdsText(note);
}
