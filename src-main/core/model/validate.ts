/**
 * Validation of drafts, field by field, before anything is sent. Errors block a delivery;
 * warnings inform. Per-track rules and delivery-wide ones (unique outer_id, duplicate ISRC,
 * positions unique per album and disk); an album's gaps and disagreements are the album's
 * (`album-review.ts`), with a warning only on the tracks that disagree.
 */
import { type AlbumsReview, reviewAlbumsSteps } from './album-review.js';
import { isNamedAlbum, slotOf } from './albums.js';
import {
  type ArtistEvidence,
  artistEvidence,
  artistEvidenceSteps,
  mightSplit,
  suggestArtistSplit,
} from './artists.js';
import { dateProblem } from './dates.js';
import { gtinKey, gtinProblem, normalizeGtin } from './gtin.js';
import { isSidePosition, normalizePosition } from './ingestion-body.js';
import { isValidIsrc, normalizeIsrc } from './isrc.js';
import { finish, Pace, type Steps } from './steps.js';
import type { DraftTrack, Finding } from './track.js';
import { quoted, showControls } from './user-text.js';

function error(field: string, message: string): Finding {
  return { level: 'error', field, message };
}

function warning(field: string, message: string): Finding {
  return { level: 'warning', field, message };
}

const missingOuterId = 'outer_id is missing; every track needs a unique id';

function positiveInteger(raw: string): boolean {
  const part = normalizePosition(raw);
  return /^\d+$/.test(part) && Number(part) > 0;
}

/**
 * The findings for one draft; `evidence` is what the library says about artist names (by
 * default, what this draft says).
 */
export function validateTrack(
  draft: DraftTrack,
  evidence: ArtistEvidence = artistEvidence([draft]),
): Finding[] {
  const findings: Finding[] = [];
  if (!draft.outerId || draft.outerId.value.trim() === '') {
    const isrc = draft.isrc && normalizeIsrc(draft.isrc.value);
    findings.push(
      isrc && isValidIsrc(isrc)
        ? {
            ...error('outer_id', `outer_id is missing; use the ISRC ${isrc} as its id?`),
            fix: { kind: 'isrc-as-outer-id', isrc },
          }
        : error('outer_id', missingOuterId),
    );
  }
  if (!draft.primaryMedia || draft.primaryMedia.value.trim() === '') {
    findings.push(error('primary_media', 'primary_media is missing; the track has no audio file'));
  }
  if (!draft.title || draft.title.value.trim() === '') {
    findings.push(warning('title', 'title is missing'));
  }
  if (draft.isrc) {
    const isrc = normalizeIsrc(draft.isrc.value);
    if (!isValidIsrc(isrc)) {
      findings.push(
        error(
          'isrc',
          `ISRC ${quoted(draft.isrc.value)} is not valid: expected CC-XXX-YY-NNNNN (12 characters)`,
        ),
      );
    }
  }
  if (draft.releaseDate) {
    const problem = dateProblem(draft.releaseDate.value);
    if (problem)
      findings.push({
        level: problem.level,
        field: 'release_date',
        message: `release date ${problem.message}`,
      });
  }
  const artists = draft.artists?.value ?? [];
  if (artists.length === 0) findings.push(warning('artists', 'no artist'));
  const source = draft.artists?.source;
  const slashJoins = source?.kind === 'tag' && source.joinedWith === '/';
  artists.forEach((artist, index) => {
    const into = suggestArtistSplit(artist.name, artist.role, { evidence, slashJoins });
    if (!into) return;
    const names = into.map((a) => `${showControls(a.name)} (${a.role})`).join(', ');
    findings.push({
      ...warning(
        'artists',
        `${quoted(artist.name)} looks like several artists; split into ${names}?`,
      ),
      fix: { kind: 'split-artist', index, name: artist.name, into },
    });
  });
  const album = draft.album;
  if (album?.upc) {
    const problem = gtinProblem(normalizeGtin(album.upc.value));
    if (problem) findings.push(error('album.upc', `UPC/EAN ${quoted(album.upc.value)} ${problem}`));
  }
  if (album?.releaseDate && album.releaseDate.value !== draft.releaseDate?.value) {
    const problem = dateProblem(album.releaseDate.value);
    if (problem) {
      findings.push({
        level: problem.level,
        field: 'album.release_date',
        message: `album release date ${problem.message}`,
      });
    }
  }
  const position = album?.trackPosition?.value;
  if (position && !positiveInteger(position) && !isSidePosition(position)) {
    findings.push(
      error(
        'album.track_position',
        `track position ${quoted(position)} is neither a positive whole number nor a vinyl side's position (such as A1)`,
      ),
    );
  }
  if (album?.diskNumber && !positiveInteger(album.diskNumber.value)) {
    findings.push(
      error(
        'album.disk_number',
        `disk number ${quoted(album.diskNumber.value)} is not a positive whole number`,
      ),
    );
  }
  return findings;
}

/** What validation works out of one draft alone: its own findings and the keys it is grouped by. */
interface DraftFacts {
  /** `validateTrack`'s findings; absent when a credit could split with new evidence. */
  own?: readonly Finding[];
  outerId?: string;
  isrc?: string;
}

function factsOf(draft: DraftTrack): DraftFacts {
  const outerId = draft.outerId?.value.trim();
  const isrc = draft.isrc && normalizeIsrc(draft.isrc.value);
  return {
    ...(outerId ? { outerId } : {}),
    ...(isrc && isValidIsrc(isrc) ? { isrc } : {}),
  };
}

/**
 * What a library's last validation worked out per draft, for the next one. Drafts are immutable:
 * a draft's own findings stay right as long as no evidence about names can change them (none of
 * its credits has a mark to split at), so a library of 100,000 tracks revalidated after an edit
 * works out only the edited drafts'. It holds the last validation's drafts only, in a plain Map
 * (many WeakMap entries slow every garbage collection of the page that owns them).
 */
export class ValidationMemo {
  #last = new Map<DraftTrack, DraftFacts>();
  #next = new Map<DraftTrack, DraftFacts>();

  /** The draft's facts, from the last validation when it had this draft. */
  facts(draft: DraftTrack): DraftFacts {
    const facts = this.#last.get(draft) ?? this.#next.get(draft) ?? factsOf(draft);
    this.#next.set(draft, facts);
    return facts;
  }

  /** Starts a validation (one left unfinished leaves nothing behind). */
  begin(): void {
    this.#next = new Map();
  }

  /** Ends a validation: what it worked out is what the next one starts from. */
  done(): void {
    this.#last = this.#next;
    this.#next = new Map();
  }
}

/**
 * `validateTrack`, from the facts when the library's evidence cannot change it: then the same
 * array as the last validation's, so a page can tell an unchanged track's findings at a glance.
 */
function trackFindings(
  draft: DraftTrack,
  facts: DraftFacts,
  evidence: ArtistEvidence,
): readonly Finding[] {
  if (facts.own) return facts.own;
  const found = validateTrack(draft, evidence);
  if (!(draft.artists?.value ?? []).some((artist) => mightSplit(artist.name))) facts.own = found;
  return found;
}

/** The keys more than one draft has, with those drafts' indexes (no array for a lone key). */
function* groupBy(
  drafts: readonly DraftTrack[],
  key: (d: DraftTrack, index: number) => string | undefined,
): Steps<Map<string, number[]>> {
  const first = new Map<string, number>();
  const groups = new Map<string, number[]>();
  const pace = new Pace();
  for (let index = 0; index < drafts.length; index++) {
    const k = key(drafts[index]!, index);
    if (pace.step()) yield;
    if (k === undefined) continue;
    const list = groups.get(k);
    if (list) list.push(index);
    else if (first.has(k)) groups.set(k, [first.get(k)!, index]);
    else first.set(k, index);
  }
  return groups;
}

/** The files of `indexes` but `self`: three named, the rest counted (linear in a large group). */
function others(drafts: readonly DraftTrack[], indexes: number[], self: number): string {
  const shown: string[] = [];
  for (const i of indexes) {
    if (shown.length === 3) break;
    if (i !== self) shown.push(drafts[i]!.file);
  }
  const more = indexes.length - 1 - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** The findings of every draft in one delivery, in the drafts' order. */
export function validateDelivery(drafts: DraftTrack[]): (readonly Finding[])[] {
  return validateLibrary(drafts).tracks;
}

/** A library as validated: each draft's findings (in the drafts' order) and its albums. */
export interface LibraryValidation {
  /** A track's array is the last validation's while its findings stay the same (`ValidationMemo`). */
  tracks: (readonly Finding[])[];
  albums: AlbumsReview;
}

/**
 * The findings of every draft in one delivery (`tracks`, in the drafts' order) and its albums as
 * reviewed (`album-review.ts`): an album's gaps and disagreements are said once, on the album.
 */
export function validateLibrary(
  drafts: readonly DraftTrack[],
  memo: ValidationMemo = new ValidationMemo(),
): LibraryValidation {
  return finish(validateLibrarySteps(drafts, memo));
}

/** `validateLibrary`, as steps (`steps.ts`): the page validates 100,000 tracks between frames. */
export function* validateLibrarySteps(
  drafts: readonly DraftTrack[],
  memo: ValidationMemo = new ValidationMemo(),
): Steps<LibraryValidation> {
  const albums = yield* reviewAlbumsSteps(drafts);
  const evidence = yield* artistEvidenceSteps(drafts);
  const pace = new Pace();
  const facts: DraftFacts[] = new Array<DraftFacts>(drafts.length);
  memo.begin();
  for (let i = 0; i < drafts.length; i++) {
    facts[i] = memo.facts(drafts[i]!);
    if (pace.step()) yield;
  }
  memo.done();
  const own: (readonly Finding[])[] = new Array<readonly Finding[]>(drafts.length);
  for (let i = 0; i < drafts.length; i++) {
    own[i] = trackFindings(drafts[i]!, facts[i]!, evidence);
    if (pace.step()) yield;
  }
  // What the library adds to a track's own findings (most tracks: nothing, and no new array).
  const more = new Map<number, Finding[]>();
  const add = (i: number, ...found: Finding[]) => {
    const list = more.get(i);
    if (list) list.push(...found);
    else more.set(i, found);
  };
  for (const [id, indexes] of yield* groupBy(drafts, (_, i) => facts[i]!.outerId)) {
    for (const i of indexes) {
      add(
        i,
        error(
          'outer_id',
          `outer_id ${quoted(id)} is also used by ${others(drafts, indexes, i)}; the service would overwrite one with the other`,
        ),
      );
      if (pace.step()) yield;
    }
  }
  for (const [isrc, indexes] of yield* groupBy(drafts, (_, i) => facts[i]!.isrc)) {
    for (const i of indexes) {
      // A shared ISRC is no track's own id: the missing outer_id offers no fix then.
      own[i] = own[i]!.map((f) =>
        f.fix?.kind === 'isrc-as-outer-id' ? error('outer_id', missingOuterId) : f,
      );
      add(i, warning('isrc', `ISRC ${isrc} is also on ${others(drafts, indexes, i)}`));
      if (pace.step()) yield;
    }
  }
  // Positions count within a named album (UPC, or title and album artist) and disk, the tracks
  // that disagree with their album on its UPC or title counting as its own.
  const positionKey = (d: DraftTrack, i: number) => {
    const album = albums.albums[albums.albumOfTrack[i]!]!;
    const place = slotOf(d);
    return place && album.keys.some(isNamedAlbum)
      ? `${albums.albumOfTrack[i]}\u0000${place.disk}\u0000${place.position}`
      : undefined;
  };
  for (const [, indexes] of yield* groupBy(drafts, positionKey)) {
    for (const i of indexes) {
      const { disk, position } = slotOf(drafts[i]!)!;
      add(
        i,
        error(
          'album.track_position',
          `track ${position} of disk ${disk} is also given to ${others(drafts, indexes, i)}`,
        ),
      );
      if (pace.step()) yield;
    }
  }
  for (const [i, found] of albums.trackFindings) add(i, ...found);
  for (const [i, finding] of yield* upcSpellingSteps(drafts)) add(i, finding);
  for (const [i, list] of more) own[i] = [...own[i]!, ...list];
  return { tracks: own, albums };
}

/**
 * The warnings for one UPC written with and without its leading zeros (a spreadsheet drops
 * them): one album by `gtinKey`, but the tracks not spelt as most are told the album's spelling.
 */
export function upcSpellingFindings(drafts: readonly DraftTrack[]): [number, Finding][] {
  return finish(upcSpellingSteps(drafts));
}

function* upcSpellingSteps(drafts: readonly DraftTrack[]): Steps<[number, Finding][]> {
  const byKey = new Map<string, Map<string, number[]>>();
  const pace = new Pace();
  for (let i = 0; i < drafts.length; i++) {
    if (pace.step()) yield;
    const raw = drafts[i]!.album?.upc?.value.trim();
    if (!raw) continue;
    const key = gtinKey(raw);
    const spellings = byKey.get(key) ?? new Map<string, number[]>();
    byKey.set(key, spellings);
    const spelt = normalizeGtin(raw);
    const tracks = spellings.get(spelt);
    if (tracks) tracks.push(i);
    else spellings.set(spelt, [i]);
  }
  const found: [number, Finding][] = [];
  for (const spellings of byKey.values()) {
    if (spellings.size < 2) continue;
    // The album's spelling: the one most tracks have, the longer one on a tie.
    const [main, mainTracks] = [...spellings].reduce((a, b) =>
      b[1].length > a[1].length || (b[1].length === a[1].length && b[0].length > a[0].length)
        ? b
        : a,
    );
    for (const [spelt, indexes] of spellings) {
      if (spelt === main) continue;
      for (const i of indexes) {
        found.push([
          i,
          warning(
            'album.upc',
            `UPC/EAN ${quoted(spelt)} is ${main} (as on ${others(drafts, [i, ...mainTracks], i)}) written without its leading zeros, as a spreadsheet writes it; the same album: write it as ${main}`,
          ),
        ]);
      }
    }
  }
  return found;
}
