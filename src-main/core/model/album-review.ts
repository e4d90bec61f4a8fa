/**
 * Album-first review, as Picard shows it: the tracks that belong together (one album identity by
 * `albumOf`, or one album title in one folder, or one title with one album artist) are reviewed
 * as one album even when they disagree on an album-level field. A disagreement (above all a UPC
 * typed wrong on one track, which would otherwise make an album of its own) is one message for
 * the album and a warning only on the odd tracks; a gap in the track positions is one message
 * for the album, not a warning on every track. One home for `courier scan`, the pre-flight and
 * the app's album panel.
 */
import { albumOf, placeOf } from './albums.js';
import { memoPerDraft } from './draft-memo.js';
import { gtinKey, gtinProblem, normalizeGtin } from './gtin.js';
import { metadataCells } from './metadata-columns.js';
import { SharedPool, sharedString } from './shared-pool.js';
import { finish, Pace, type Steps } from './steps.js';
import { artistRoles } from './tags-to-track.js';
import type { DraftTrack, Finding } from './track.js';

/** The album-level fields compared across an album's tracks, by the metadata column that edits them. */
export type AlbumFieldColumn = 'upc' | 'album' | 'album_artist' | 'label' | 'album_release_date';

/** The Finding field (and so the label people read) of each compared column. */
const findingField: Record<AlbumFieldColumn, string> = {
  upc: 'album.upc',
  album: 'album.title',
  album_artist: 'album.artist',
  label: 'album.label',
  album_release_date: 'album.release_date',
};

const columnsCompared = Object.keys(findingField) as AlbumFieldColumn[];

/** How each compared field is named in a sentence. */
const fieldNoun: Record<AlbumFieldColumn, string> = {
  upc: 'UPC',
  album: 'album title',
  album_artist: 'album artist',
  label: 'label',
  album_release_date: 'album release date',
};

/** The one-click fix of a disagreement: write `value` in `column` on the tracks at `indexes`. */
export interface AlbumFieldFix {
  kind: 'album-field';
  column: AlbumFieldColumn;
  value: string;
  /** The tracks (indexes into the reviewed drafts) that do not have it yet. */
  indexes: number[];
  /** What the button says ("Use 0602445566778 on all 12 tracks"). */
  label: string;
}

/** One thing to know about an album as a whole. */
export interface AlbumFinding {
  level: 'error' | 'warning';
  /** The Finding field it is about (`album.upc`, `album.track_position`, ...). */
  field: string;
  message: string;
  fix?: AlbumFieldFix;
}

/** One line of an album's track list: a track, or a position no track has. */
export type AlbumLine =
  | {
      kind: 'track';
      index: number;
      disk: string;
      /** The position as a number; null when the track has none (or none usable). */
      position: number | null;
      /** Another track of the album has the same disk and position. */
      duplicate: boolean;
    }
  | { kind: 'missing'; disk: string; position: number };

/** One album as reviewed. */
export interface AlbumReview {
  /** The album's key: `albumOf` of most of its tracks. */
  key: string;
  /** The `albumOf` keys its tracks have (several when they disagree on UPC or title). */
  keys: string[];
  label: string;
  title: string;
  artist: string;
  /** The album's UPC/EAN as compared: 13 digits for a valid code, else as most tracks write it. */
  upc: string;
  /** The indexes of its tracks, in the drafts' order. */
  indexes: number[];
  /** Its tracks in disk and position order, the gaps as `missing` lines. */
  lines: AlbumLine[];
  findings: AlbumFinding[];
}

/** The albums of a delivery, and the warnings for the tracks that disagree with their album. */
export interface AlbumsReview {
  albums: AlbumReview[];
  /** The index of each track's album in `albums`, by track index. */
  albumOfTrack: number[];
  trackFindings: Map<number, Finding[]>;
}

/** A disc's folder (`CD1`, `Disc 2`) is part of the album of the folder above it. */
const DISC_FOLDER = /^(cd|dis[ck])[\s_-]*\d+$/i;

function folderOf(file: string): string {
  const parts = file.split('/').slice(0, -1);
  if (parts.length > 0 && DISC_FOLDER.test(parts.at(-1)!)) parts.pop();
  return parts.join('/');
}

const fold = (text: string) => text.trim().normalize('NFC').toLowerCase();

function albumArtistTag(draft: DraftTrack): string {
  return draft.artists?.value.find((a) => a.role === artistRoles.albumArtist)?.name.trim() ?? '';
}

class Groups {
  readonly #parent = new Map<string, string>();
  find(key: string): string {
    let root = key;
    while (this.#parent.has(root)) root = this.#parent.get(root)!;
    if (root !== key) this.#parent.set(key, root);
    return root;
  }
  join(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.#parent.set(rb, ra);
  }
}

/** What review needs of one track, worked out once per draft. */
interface TrackInfo {
  /** `albumOf(draft).key`. */
  key: string;
  folder: string;
  /** The album title as compared ('' when none). */
  title: string;
  /** The title with the album artist, else with the folder ('' without a title). */
  titleKey: string;
  place: { disk: string; position: number } | undefined;
  values: Record<AlbumFieldColumn, FieldValue>;
}

// Worked out once per draft: a validation after an edit of a few tracks works out only theirs.
const infoOf = memoPerDraft((draft): TrackInfo => {
  const folder = folderOf(draft.file);
  const raw = draft.album?.title?.value.trim();
  const title = raw ? fold(raw) : '';
  const artist = albumArtistTag(draft);
  const titleKey = title ? `${title}\u0000${artist ? fold(artist) : `folder:${folder}`}` : '';
  const values = {} as Record<AlbumFieldColumn, FieldValue>;
  for (const column of columnsCompared) values[column] = fieldValue(draft, column);
  return {
    key: albumOf(draft).key,
    folder: sharedString(folder),
    title: sharedString(title),
    titleKey: sharedString(titleKey),
    place: placeOf(draft),
    // An album's tracks mostly agree on its fields: one record of them, not one a track.
    values: albumValues.get(JSON.stringify(columnsCompared.map((c) => values[c].key)), values),
  };
});

/** The compared album fields of tracks that agree on them all (see `SharedPool`). */
const albumValues = new SharedPool<Record<AlbumFieldColumn, FieldValue>>(20_000);

/** Which `albumOf` keys are one album for review (the union of the rules above). */
function* joinedKeys(infos: readonly TrackInfo[]): Steps<Groups> {
  const groups = new Groups();
  const tracksOfKey = new Map<string, number>();
  const pace = new Pace();
  for (const { key } of infos) {
    tracksOfKey.set(key, (tracksOfKey.get(key) ?? 0) + 1);
    if (pace.step()) yield;
  }
  // A valid UPC on several tracks is strong evidence of an album of its own.
  const strong = (key: string) =>
    key.startsWith('upc:') && gtinProblem(key.slice(4)) === null && (tracksOfKey.get(key) ?? 0) > 1;
  const byTitle = new Map<string, Set<string>>();
  const byFolder = new Map<string, { keys: Set<string>; titles: Set<string> }>();
  for (const { key, folder, title, titleKey } of infos) {
    if (titleKey) {
      const set = byTitle.get(titleKey) ?? new Set<string>();
      set.add(key);
      byTitle.set(titleKey, set);
    }
    if (folder) {
      const entry = byFolder.get(folder) ?? { keys: new Set<string>(), titles: new Set<string>() };
      entry.keys.add(key);
      if (title) entry.titles.add(title);
      byFolder.set(folder, entry);
    }
    if (pace.step()) yield;
  }
  for (const set of byTitle.values()) {
    if (pace.step(set.size)) yield;
    // Two valid UPCs each on several tracks under one title are two editions, not one album.
    if ([...set].filter(strong).length > 1) continue;
    const [first, ...rest] = set;
    for (const key of rest) groups.join(first!, key);
  }
  for (const { keys: set, titles } of byFolder.values()) {
    if (pace.step(set.size)) yield;
    // A folder holding one album title (or none) holds one album.
    if (titles.size > 1) continue;
    const [first, ...rest] = set;
    for (const key of rest) groups.join(first!, key);
  }
  return groups;
}

interface FieldValue {
  key: string;
  text: string;
}

// An album's tracks share their UPC text: each text is checked once (bounded, for 10,000 tracks).
const upcValues = new Map<string, FieldValue>();

function upcValue(raw: string): FieldValue {
  let value = upcValues.get(raw);
  if (!value) {
    const code = normalizeGtin(raw.trim());
    const shown = code !== '' && gtinProblem(code) === null ? gtinKey(code) : code;
    value = { key: shown, text: shown };
    if (upcValues.size >= 20_000) upcValues.clear();
    upcValues.set(raw, value);
  }
  return value;
}

/** The value of a compared field on a track: the text to compare by and to show. */
function fieldValue(draft: DraftTrack, column: AlbumFieldColumn): FieldValue {
  const album = draft.album;
  if (column === 'upc') return upcValue(album?.upc?.value ?? '');
  const raw =
    column === 'album'
      ? album?.title?.value
      : column === 'album_artist'
        ? albumArtistTag(draft)
        : column === 'label'
          ? album?.label?.value
          : album?.releaseDate?.value;
  const text = (raw ?? '').trim().normalize('NFC');
  return fieldValues.get(text, { key: text, text });
}

/** One value of a field's text, whichever field and track it is in (see `SharedPool`). */
const fieldValues = new SharedPool<FieldValue>(50_000);

const fileName = (draft: DraftTrack) => draft.file.split('/').at(-1) ?? draft.file;
const tracks = (n: number) => (n === 1 ? '1 track' : `${n} tracks`);
const have = (n: number) => (n === 1 ? '1 has' : `${n} have`);
const shownValue = (column: AlbumFieldColumn, text: string) =>
  text === '' ? 'none' : column === 'upc' ? text : `'${text}'`;

/** Whether every one of the tracks has the same value in a field (most albums: a quick check). */
function sameEverywhere(
  infos: readonly TrackInfo[],
  indexes: readonly number[],
  column: AlbumFieldColumn,
): boolean {
  const first = infos[indexes[0]!]!.values[column].key;
  for (const i of indexes) if (infos[i]!.values[column].key !== first) return false;
  return true;
}

/** The disagreement of the album's tracks on one field, as album and track findings. */
function disagreement(
  drafts: readonly DraftTrack[],
  infos: readonly TrackInfo[],
  indexes: readonly number[],
  column: AlbumFieldColumn,
  albumName: string,
  trackFindings: Map<number, Finding[]>,
): AlbumFinding | undefined {
  if (sameEverywhere(infos, indexes, column)) return undefined;
  const values = new Map<string, { text: string; indexes: number[] }>();
  for (const i of indexes) {
    const { key, text } = infos[i]!.values[column];
    const entry = values.get(key) ?? { text, indexes: [] };
    entry.indexes.push(i);
    values.set(key, entry);
  }
  if (values.size < 2) return undefined;
  // The album's value: the one most tracks have, never none (and for a UPC, a valid one).
  const candidates = [...values].filter(
    ([key]) => key !== '' && (column !== 'upc' || gtinProblem(key) === null),
  );
  candidates.sort((a, b) => b[1].indexes.length - a[1].indexes.length);
  const top = candidates[0];
  const clear =
    top && (candidates.length === 1 || candidates[1]![1].indexes.length < top[1].indexes.length);
  const main = clear ? top : undefined;
  const groups = [...values.values()].sort((a, b) => b.indexes.length - a.indexes.length);
  const odd = groups.filter((g) => g !== main?.[1]);
  const oddCount = odd.reduce((n, g) => n + g.indexes.length, 0);
  const noun = fieldNoun[column];
  const parts = groups.slice(0, 4).map((g) => {
    const named =
      g !== main?.[1] && g.indexes.length <= 2
        ? ` (${g.indexes.map((i) => fileName(drafts[i]!)).join(', ')})`
        : '';
    return `${have(g.indexes.length)} ${shownValue(column, g.text)}${named}`;
  });
  if (groups.length > 4) parts.push(`${groups.length - 4} other values`);
  const message = `${tracks(oddCount)} ${oddCount === 1 ? 'disagrees' : 'disagree'} on ${noun}: ${parts.join(', ')}`;
  const field = findingField[column];
  if (main) {
    const [, { text, indexes: mainIndexes }] = main;
    const others = mainIndexes.length;
    const shown = shownValue(column, text);
    for (const g of odd) {
      for (const i of g.indexes) {
        const own =
          g.text === ''
            ? `${noun[0]!.toUpperCase()}${noun.slice(1)} is missing, while the other ${tracks(others)} of ${albumName} have ${shown}`
            : `${noun[0]!.toUpperCase()}${noun.slice(1)} ${shownValue(column, g.text)} differs from the other ${tracks(others)} of ${albumName} (${shown})`;
        const list = trackFindings.get(i) ?? [];
        list.push({
          level: 'warning',
          field,
          message: `${own}; use the album panel to set one ${noun} on every track`,
        });
        trackFindings.set(i, list);
      }
    }
    const value = column === 'upc' ? text : infos[mainIndexes[0]!]!.values[column].text;
    return {
      level: 'warning',
      field,
      message,
      fix: {
        kind: 'album-field',
        column,
        value,
        indexes: odd.flatMap((g) => g.indexes),
        label: `Use ${shown} on all ${indexes.length} tracks`,
      },
    };
  }
  for (const g of groups) {
    for (const i of g.indexes) {
      const list = trackFindings.get(i) ?? [];
      list.push({
        level: 'warning',
        field,
        message: `the tracks of ${albumName} disagree on ${noun} (this one has ${shownValue(column, g.text)}); choose one in the album panel`,
      });
      trackFindings.set(i, list);
    }
  }
  return { level: 'warning', field, message };
}

/** The album's track list, disk by disk, with the gaps and duplicated positions. */
function trackLines(
  drafts: readonly DraftTrack[],
  infos: readonly TrackInfo[],
  indexes: readonly number[],
): AlbumLine[] {
  const byDisk = new Map<string, { index: number; position: number }[]>();
  const unplaced: AlbumLine[] = [];
  for (const index of indexes) {
    const place = infos[index]!.place;
    if (!place) {
      const disk = drafts[index]!.album?.diskNumber?.value.trim() || '1';
      unplaced.push({ kind: 'track', index, disk, position: null, duplicate: false });
      continue;
    }
    const list = byDisk.get(place.disk) ?? [];
    list.push({ index, position: place.position });
    byDisk.set(place.disk, list);
  }
  const disks = [...byDisk.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  const lines: AlbumLine[] = [];
  for (const disk of disks) {
    const list = byDisk.get(disk)!.sort((a, b) => a.position - b.position || a.index - b.index);
    const counts = new Map<number, number>();
    for (const t of list) counts.set(t.position, (counts.get(t.position) ?? 0) + 1);
    let next = 1;
    for (const t of list) {
      // A lone track says nothing of gaps (a single, or one track picked out of an album).
      if (list.length > 1) {
        for (; next < t.position; next++) lines.push({ kind: 'missing', disk, position: next });
      }
      next = Math.max(next, t.position + 1);
      lines.push({
        kind: 'track',
        index: t.index,
        disk,
        position: t.position,
        duplicate: counts.get(t.position)! > 1,
      });
    }
  }
  return [...lines, ...unplaced];
}

/** The album finding for the positions no track has (one message, not one per track). */
function gapFinding(lines: readonly AlbumLine[]): AlbumFinding | undefined {
  const missing = lines.filter((l) => l.kind === 'missing');
  if (missing.length === 0) return undefined;
  const disks = new Set(lines.map((l) => l.disk));
  const byDisk = new Map<string, number[]>();
  for (const l of missing.slice(0, 6))
    byDisk.set(l.disk, [...(byDisk.get(l.disk) ?? []), l.position]);
  const shown =
    [...byDisk]
      .map(([disk, positions]) =>
        disks.size > 1 || disk !== '1'
          ? `${positions.join(', ')} on disk ${disk}`
          : positions.join(', '),
      )
      .join('; ') + (missing.length > 6 ? '…' : '');
  return {
    level: 'warning',
    field: 'album.track_position',
    message: `no track ${shown}: ${missing.length === 1 ? 'a track is' : 'tracks are'} missing or numbered wrong (add ${missing.length === 1 ? 'it' : 'them'}, or correct the Track # of the others)`,
  };
}

/**
 * Reviews the albums of a delivery: which tracks make one album, each album's track list with
 * its gaps, and its findings (disagreements on album-level fields and gaps) once per album, with
 * a warning on each track that disagrees with its album.
 */
export function reviewAlbums(drafts: readonly DraftTrack[]): AlbumsReview {
  return finish(reviewAlbumsSteps(drafts));
}

/** `reviewAlbums`, as steps (`steps.ts`). */
export function* reviewAlbumsSteps(drafts: readonly DraftTrack[]): Steps<AlbumsReview> {
  const infos: TrackInfo[] = new Array<TrackInfo>(drafts.length);
  const keys: string[] = new Array<string>(drafts.length);
  const pace = new Pace();
  for (let i = 0; i < drafts.length; i++) {
    const info = infoOf(drafts[i]!);
    infos[i] = info;
    keys[i] = info.key;
    if (pace.step()) yield;
  }
  const groups = yield* joinedKeys(infos);
  const byRoot = new Map<string, number[]>();
  for (let i = 0; i < keys.length; i++) {
    const root = groups.find(keys[i]!);
    const list = byRoot.get(root);
    if (list) list.push(i);
    else byRoot.set(root, [i]);
    if (pace.step()) yield;
  }
  const albums: AlbumReview[] = [];
  const albumOfTrack: number[] = new Array<number>(drafts.length);
  const trackFindings = new Map<number, Finding[]>();
  for (const indexes of byRoot.values()) {
    if (pace.step(indexes.length)) yield;
    const counts = new Map<string, number>();
    for (const i of indexes) counts.set(keys[i]!, (counts.get(keys[i]!) ?? 0) + 1);
    const main = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    const first = drafts[indexes.find((i) => keys[i] === main)!]!;
    const lines = trackLines(drafts, infos, indexes);
    const title = commonText(infos, indexes, 'album');
    const albumName = title ? `'${title}'` : 'this album';
    const findings: AlbumFinding[] = [];
    if (indexes.length > 1) {
      for (const column of columnsCompared) {
        const found = disagreement(drafts, infos, indexes, column, albumName, trackFindings);
        if (found) findings.push(found);
      }
    }
    const gaps = gapFinding(lines);
    if (gaps) findings.push(gaps);
    const n = albums.length;
    for (const i of indexes) albumOfTrack[i] = n;
    albums.push({
      key: main,
      keys: [...counts.keys()],
      label: albumOf(first).label,
      title,
      artist: commonText(infos, indexes, 'album_artist'),
      upc: commonText(infos, indexes, 'upc'),
      indexes,
      lines,
      findings,
    });
  }
  return { albums, albumOfTrack, trackFindings };
}

/** The value most of the album's tracks have in a field ('' when none has one). */
function commonText(
  infos: readonly TrackInfo[],
  indexes: readonly number[],
  column: AlbumFieldColumn,
): string {
  if (sameEverywhere(infos, indexes, column)) return infos[indexes[0]!]!.values[column].text;
  const counts = new Map<string, { text: string; n: number }>();
  for (const i of indexes) {
    const { key, text } = infos[i]!.values[column];
    if (!key) continue;
    const entry = counts.get(key) ?? { text, n: 0 };
    entry.n++;
    counts.set(key, entry);
  }
  let best: { text: string; n: number } | undefined;
  for (const entry of counts.values()) {
    const validUpc = column !== 'upc' || gtinProblem(entry.text) === null;
    const bestValid = best && (column !== 'upc' || gtinProblem(best.text) === null);
    if (!best || (validUpc && !bestValid) || (validUpc === bestValid && entry.n > best.n)) {
      best = entry;
    }
  }
  return best?.text ?? '';
}

/** A draft with an album fix applied (the fix's value written as a manual edit). */
export function withAlbumFix(draft: DraftTrack, fix: AlbumFieldFix): DraftTrack {
  return metadataCells[fix.column].set!(draft, fix.value, { kind: 'manual' });
}

/** One album as `courier scan --json` and the pre-flight report it (no indexes: files). */
export interface AlbumSummary {
  label: string;
  title: string;
  artist: string;
  /** 13 digits for a valid code. */
  upc: string;
  /** Its tracks' files, in disk and position order. */
  files: string[];
  /** The positions no track has ("10", "2-5" for disk 2 track 5). */
  missing: string[];
  findings: Array<{ level: 'error' | 'warning'; field: string; message: string; fix?: string }>;
}

/** An album review as plain data, its tracks named by their files. */
export function albumSummary(album: AlbumReview, drafts: readonly DraftTrack[]): AlbumSummary {
  const disks = new Set(album.lines.map((l) => l.disk));
  return {
    label: album.label,
    title: album.title,
    artist: album.artist,
    upc: album.upc,
    files: album.lines.flatMap((l) => (l.kind === 'track' ? [drafts[l.index]!.file] : [])),
    missing: album.lines.flatMap((l) =>
      l.kind === 'missing'
        ? [disks.size > 1 || l.disk !== '1' ? `${l.disk}-${l.position}` : String(l.position)]
        : [],
    ),
    findings: album.findings.map(({ level, field, message, fix }) => ({
      level,
      field,
      message,
      ...(fix ? { fix: fix.label } : {}),
    })),
  };
}

/** The album findings of a delivery, each once, with the album they are about. */
export function albumFindings(
  review: AlbumsReview,
): Array<{ level: 'error' | 'warning'; field: string; message: string; album: string }> {
  return review.albums.flatMap((album) =>
    album.findings.map(({ level, field, message }) => ({
      level,
      field,
      message,
      album: album.title || album.label,
    })),
  );
}
