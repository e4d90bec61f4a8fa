/**
 * The one album identity, used by validation (`courier scan`, planning) and the grid alike: an
 * album is its UPC (leading zeros aside: a UPC-A and its EAN-13 form are one album), else its title with its album artist (two "Greatest Hits" by two artists
 * are two albums), else its title in its folder (a compilation without an album artist stays one
 * album; disc folders count as their parent), else — for grouping only — its folder. And the
 * track positions of each album and disk: gaps and duplicates, for the album header to show at a
 * glance (what validation says of them: `album-review.ts` and `validate.ts`).
 */
import { memoPerDraft } from './draft-memo.js';
import { gtinKey } from './gtin.js';
import { isSidePosition, normalizePosition } from './ingestion-body.js';
import { SharedPool } from './shared-pool.js';
import { artistRoles } from './tags-to-track.js';
import type { DraftTrack } from './track.js';

/** The grouping key of a track's album, with a label to show (worked out once per draft). */
export const albumOf: (draft: DraftTrack) => { key: string; label: string } = memoPerDraft(
  (draft) => {
    const album = computeAlbum(draft);
    // An album's tracks share one (see `SharedPool`).
    return albums.get(JSON.stringify([album.key, album.label]), album);
  },
);

const albums = new SharedPool<{ key: string; label: string }>(20_000);

/** The artist an album is shown under: its album artist, else the track's first main artist. */
export function albumArtistOf(draft: DraftTrack): string {
  const artists = draft.artists?.value ?? [];
  return (
    artists.find((a) => a.role === artistRoles.albumArtist)?.name ??
    artists.find((a) => a.role === artistRoles.main)?.name ??
    ''
  );
}

function computeAlbum(draft: DraftTrack): { key: string; label: string } {
  const album = draft.album;
  const upc = album?.upc?.value.trim();
  if (upc) {
    const title = album?.title?.value.trim();
    return { key: `upc:${gtinKey(upc)}`, label: title ? `${title} (${upc})` : `UPC ${upc}` };
  }
  const title = album?.title?.value.trim();
  const folder = albumFolder(draft.file);
  if (title) {
    const name = title.normalize('NFC').toLowerCase();
    // Tagged with its album artist, an album is title + album artist. Without one, the tracks'
    // own artists differ on a compilation, so the folder holding the album stands in for it.
    // The parts are a JSON array, not joined by a separator: a tag may hold any character, and
    // album 'A\0B' by 'C' is not album 'A' by 'B\0C', nor an artist named like a folder key.
    const albumArtist = draft.artists?.value.find((a) => a.role === artistRoles.albumArtist)?.name;
    if (albumArtist) {
      return {
        key: `title:${JSON.stringify([name, albumArtist.normalize('NFC').toLowerCase()])}`,
        label: `${title} — ${albumArtist}`,
      };
    }
    const artist = albumArtistOf(draft);
    return {
      key: `title:${JSON.stringify([name, { folder }])}`,
      label: artist ? `${title} — ${artist}` : title,
    };
  }
  return { key: `folder:${folder}`, label: folder ? `Folder ${folder}` : 'No album' };
}

/** A disc's folder (`CD1`, `Disc 2`, `disk_03`) is part of the album of the folder above it. */
const DISC_FOLDER = /^(cd|dis[ck])[\s_-]*\d+$/i;

/** The folder an album sits in: the track's folder, a disc folder counting as its parent. */
function albumFolder(file: string): string {
  const parts = file.split('/').slice(0, -1);
  if (parts.length > 0 && DISC_FOLDER.test(parts.at(-1)!)) parts.pop();
  return parts.join('/');
}

/** Whether an album key names a real album (UPC or title), not only the folder a track sits in. */
export function isNamedAlbum(key: string): boolean {
  return !key.startsWith('folder:');
}

const memoPlace = memoPerDraft((draft) => {
  const place = computePlace(draft);
  // The same few places recur on every album: one object each (see `SharedPool`).
  return place ? places.get(JSON.stringify([place.disk, place.position]), place) : null;
});

const places = new SharedPool<{ disk: string; position: number }>(20_000);

/** A track's disk and position, when its position is a positive whole number. */
export function placeOf(draft: DraftTrack): { disk: string; position: number } | undefined {
  return memoPlace(draft) ?? undefined;
}

function computePlace(draft: DraftTrack): { disk: string; position: number } | undefined {
  const raw = draft.album?.trackPosition?.value;
  if (!raw) return undefined;
  const position = Number(normalizePosition(raw));
  if (!Number.isInteger(position) || position < 1) return undefined;
  return { disk: diskOf(draft), position };
}

const diskOf = (draft: DraftTrack) =>
  draft.album?.diskNumber ? normalizePosition(draft.album.diskNumber.value) : '1';

/**
 * A track's disk and position as it is sent: a positive whole number, or a vinyl side's
 * position ("A1"), which takes no part in counting an album's tracks but is still one track's.
 */
export function slotOf(draft: DraftTrack): { disk: string; position: number | string } | undefined {
  const place = placeOf(draft);
  if (place) return place;
  const raw = draft.album?.trackPosition?.value;
  return raw && isSidePosition(raw)
    ? { disk: diskOf(draft), position: normalizePosition(raw) }
    : undefined;
}

/** The positions from 1 to the highest present that no track has (at most `limit` + 1). */
function missingPositions(present: ReadonlySet<number>, limit: number): number[] {
  const max = Math.max(...present);
  const missing: number[] = [];
  for (let p = 1; p <= max && missing.length <= limit; p++) if (!present.has(p)) missing.push(p);
  return missing;
}

/** The position problems of one album's tracks, as short texts ("3", "2-5" for disk 2 track 5). */
export interface PositionProblems {
  gaps: string[];
  duplicates: string[];
}

/** Gaps and duplicated positions among the tracks of one album, disk by disk. */
export function positionProblems(drafts: readonly DraftTrack[]): PositionProblems {
  const byDisk = new Map<string, number[]>();
  for (const draft of drafts) {
    const place = placeOf(draft);
    if (!place) continue;
    const list = byDisk.get(place.disk);
    if (list) list.push(place.position);
    else byDisk.set(place.disk, [place.position]);
  }
  const named = (disk: string, position: number) =>
    byDisk.size > 1 || disk !== '1' ? `${disk}-${position}` : String(position);
  const gaps: string[] = [];
  const duplicates: string[] = [];
  for (const [disk, positions] of byDisk) {
    const present = new Set(positions);
    if (positions.length > 1) {
      for (const p of missingPositions(present, 5)) gaps.push(named(disk, p));
    }
    const seen = new Set<number>();
    for (const p of positions) {
      if (seen.has(p) && !duplicates.includes(named(disk, p))) duplicates.push(named(disk, p));
      seen.add(p);
    }
  }
  return { gaps, duplicates };
}
