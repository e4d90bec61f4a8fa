/**
 * Albums as the grid groups them: by UPC, else album title + album artist, else folder; and the
 * track positions of each album and disk checked for gaps (duplicates are core validation's).
 */
import { normalizeGtin } from '../../src-main/core/model/gtin.js';
import { normalizePosition } from '../../src-main/core/model/ingestion-body.js';
import { artistRoles } from '../../src-main/core/model/tags-to-track.js';
import type { DraftTrack, Finding } from '../../src-main/core/model/track.js';

// Drafts are immutable: an album key computed once per draft object stays right, and a bulk
// edit of 1,000 tracks out of 10,000 recomputes only those.
const albumCache = new WeakMap<DraftTrack, { key: string; label: string }>();

/** The grouping key of a track's album, with a label to show. */
export function albumOf(draft: DraftTrack): { key: string; label: string } {
  let album = albumCache.get(draft);
  if (!album) {
    album = computeAlbum(draft);
    albumCache.set(draft, album);
  }
  return album;
}

function computeAlbum(draft: DraftTrack): { key: string; label: string } {
  const album = draft.album;
  const upc = album?.upc?.value.trim();
  if (upc) {
    const title = album?.title?.value.trim();
    return { key: `upc:${normalizeGtin(upc)}`, label: title ? `${title} (${upc})` : `UPC ${upc}` };
  }
  const title = album?.title?.value.trim();
  if (title) {
    const artists = draft.artists?.value ?? [];
    const artist =
      artists.find((a) => a.role === artistRoles.albumArtist)?.name ??
      artists.find((a) => a.role === artistRoles.main)?.name ??
      '';
    return {
      key: `title:${title.normalize('NFC').toLowerCase()}\u0000${artist.toLowerCase()}`,
      label: artist ? `${title} — ${artist}` : title,
    };
  }
  const slash = draft.file.lastIndexOf('/');
  const folder = slash < 0 ? '' : draft.file.slice(0, slash);
  return { key: `folder:${folder}`, label: folder ? `Folder ${folder}` : 'No album' };
}

/** Warnings for albums whose track positions skip numbers, keyed by the index of each track. */
export function positionGaps(drafts: readonly DraftTrack[]): Map<number, Finding> {
  const groups = new Map<string, { index: number; position: number }[]>();
  drafts.forEach((draft, index) => {
    const raw = draft.album?.trackPosition?.value;
    if (!raw) return;
    const position = Number(normalizePosition(raw));
    if (!Number.isInteger(position) || position < 1) return;
    const disk = draft.album?.diskNumber ? normalizePosition(draft.album.diskNumber.value) : '1';
    const key = `${albumOf(draft).key}\u0000${disk}`;
    const list = groups.get(key);
    if (list) list.push({ index, position });
    else groups.set(key, [{ index, position }]);
  });
  const result = new Map<number, Finding>();
  for (const list of groups.values()) {
    if (list.length < 2) continue;
    const present = new Set(list.map((t) => t.position));
    const max = Math.max(...present);
    const missing: number[] = [];
    for (let p = 1; p <= max && missing.length <= 5; p++) if (!present.has(p)) missing.push(p);
    if (missing.length === 0) continue;
    const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? '…' : '');
    for (const { index } of list) {
      result.set(index, {
        level: 'warning',
        field: 'album.track_position',
        message: `this album has no track ${shown} (positions skip numbers)`,
      });
    }
  }
  return result;
}
