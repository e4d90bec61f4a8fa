/**
 * The library's findings, worked out in steps (`steps.ts`) that the page runs between frames:
 * each row's findings (as read, with a cut-short master accepted or not; validation across the
 * library; the profile's masters rules; a file gone) and the albums as reviewed. What did not
 * change since the last pass is handed back as it was (the same arrays, the same Map, the same
 * review), so what follows the findings in the page recomputes nothing for it.
 */
import type {
  AlbumFinding,
  AlbumLine,
  AlbumReview,
  AlbumsReview,
} from '../../src-main/core/model/album-review.js';
import { checkRules, type DeliveryRules } from '../../src-main/core/model/delivery-rules.js';
import { withAcceptance } from '../../src-main/core/model/masters.js';
import { Pace, type Steps } from '../../src-main/core/model/steps.js';
import type { Finding } from '../../src-main/core/model/track.js';
import { validateLibrarySteps, type ValidationMemo } from '../../src-main/core/model/validate.js';
import type { LibraryRow } from './library-state.svelte.js';

/** Every row's findings by id, and the albums of the ready rows (`ids`: theirs, in order). */
export interface LibraryFindings {
  findings: Map<string, readonly Finding[]>;
  albums: { review: AlbumsReview; ids: string[] };
}

/** The findings of an empty library (the page's before its first pass). */
export const noFindings: LibraryFindings = {
  findings: new Map(),
  albums: { review: { albums: [], albumOfTrack: [], trackFindings: new Map() }, ids: [] },
};

/** A row whose file main found gone or changed since it was added. */
const missingFinding: Finding = {
  level: 'warning',
  message: 'the file is gone or changed since it was added; add it again to deliver it',
};

/** The findings of `rows`, reusing what `last` has where nothing changed. */
export function* findingsSteps(
  rows: readonly LibraryRow[],
  rules: DeliveryRules | null,
  memo: ValidationMemo,
  last: LibraryFindings,
): Steps<LibraryFindings> {
  const ready = rows.filter((row) => row.status === 'ready');
  const validation = yield* validateLibrarySteps(
    ready.map((row) => row.draft),
    memo,
  );
  const findings = new Map<string, readonly Finding[]>();
  let changed = false;
  const keep = (id: string, list: readonly Finding[]) => {
    const before = last.findings.get(id);
    if (before && sameFindings(before, list)) findings.set(id, before);
    else {
      findings.set(id, list);
      changed = true;
    }
  };
  const pace = new Pace();
  for (let i = 0; i < ready.length; i++) {
    const row = ready[i]!;
    const validated = validation.tracks[i]!;
    const found = rules ? checkRules(row.audio, rules) : [];
    // Most rows: validation's own array (the last pass's too, while the draft is unchanged).
    keep(
      row.id,
      row.readFindings.length === 0 && found.length === 0 && !row.missing
        ? validated
        : [
            ...withAcceptance(row.readFindings, row.acceptCutShort),
            ...validated,
            ...found,
            ...(row.missing ? [missingFinding] : []),
          ],
    );
    if (pace.step()) yield;
  }
  for (const row of rows) {
    if (row.status !== 'unreadable') continue;
    keep(row.id, row.missing ? [...row.readFindings, missingFinding] : row.readFindings);
    if (pace.step()) yield;
  }
  const ids = ready.map((row) => row.id);
  const sameAlbums = yield* sameReviewSteps(last.albums, validation.albums, ids);
  return {
    findings: changed || findings.size !== last.findings.size ? findings : last.findings,
    albums: sameAlbums ? last.albums : { review: validation.albums, ids },
  };
}

function sameFinding(a: Finding | AlbumFinding, b: Finding | AlbumFinding): boolean {
  return (
    a === b ||
    (a.level === b.level &&
      a.field === b.field &&
      a.message === b.message &&
      ('code' in a ? a.code : undefined) === ('code' in b ? b.code : undefined) &&
      (a.fix === b.fix || JSON.stringify(a.fix) === JSON.stringify(b.fix)))
  );
}

function sameFindings(a: readonly Finding[], b: readonly Finding[]): boolean {
  return a === b || (a.length === b.length && a.every((f, i) => sameFinding(f, b[i]!)));
}

const sameList = <T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean) =>
  a === b || (a.length === b.length && a.every((x, i) => same(x, b[i]!)));

const sameLine = (a: AlbumLine, b: AlbumLine) =>
  a.kind === b.kind &&
  a.disk === b.disk &&
  a.position === b.position &&
  (a.kind === 'missing' ||
    (b.kind === 'track' && a.index === b.index && a.duplicate === b.duplicate));

function sameAlbum(a: AlbumReview, b: AlbumReview): boolean {
  return (
    a.key === b.key &&
    a.label === b.label &&
    a.title === b.title &&
    a.artist === b.artist &&
    a.upc === b.upc &&
    sameList(a.keys, b.keys, Object.is) &&
    sameList(a.indexes, b.indexes, Object.is) &&
    sameList(a.lines, b.lines, sameLine) &&
    sameList(a.findings, b.findings, sameFinding)
  );
}

/** Whether a new review says what the last one did, of the same rows. */
function* sameReviewSteps(
  last: LibraryFindings['albums'],
  review: AlbumsReview,
  ids: readonly string[],
): Steps<boolean> {
  if (last.review.albums.length !== review.albums.length || !sameList(last.ids, ids, Object.is)) {
    return false;
  }
  const pace = new Pace();
  for (let i = 0; i < review.albums.length; i++) {
    const album = review.albums[i]!;
    if (!sameAlbum(last.review.albums[i]!, album)) return false;
    if (pace.step(album.indexes.length)) yield;
  }
  return true;
}
