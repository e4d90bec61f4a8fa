import { describe, expect, it } from 'vitest';

import { albumOf } from '../../../src-main/core/model/albums.js';
import { finish } from '../../../src-main/core/model/steps.js';
import type { DraftTrack, Finding } from '../../../src-main/core/model/track.js';
import {
  validateDelivery,
  validateLibrary,
  validateLibrarySteps,
  validateTrack,
  ValidationMemo,
} from '../../../src-main/core/model/validate.js';
import { draft, fromTag } from './helpers.js';

const withId = (file: string, id: string, extra = {}) =>
  draft(file, { outerId: fromTag(id), ...extra });

/** The artists a finding offers to split into, if it offers a split. */
const splitOf = (f: Finding) => (f.fix?.kind === 'split-artist' ? f.fix.into : undefined);

function fields(findings: readonly { field?: string; level: string }[]) {
  return findings.map((f) => `${f.level}:${f.field}`);
}

describe('validateTrack()', () => {
  it('finds nothing wrong with a complete track', () => {
    expect(validateTrack(withId('a.wav', 'A1', { isrc: fromTag('GBAYE0601498') }))).toEqual([]);
  });
  it('requires outer_id and primary_media', () => {
    const d = draft('a.wav');
    delete d.primaryMedia;
    expect(fields(validateTrack(d))).toEqual(['error:outer_id', 'error:primary_media']);
  });
  it('accepts an ISRC written with hyphens and lower case, rejects a malformed one', () => {
    expect(validateTrack(withId('a.wav', 'A', { isrc: fromTag('gb-aye-06-01498') }))).toEqual([]);
    const [finding] = validateTrack(withId('a.wav', 'A', { isrc: fromTag('GB-AYE-06-0149') }));
    expect(finding).toMatchObject({ level: 'error', field: 'isrc' });
    expect(finding?.message).toContain("'GB-AYE-06-0149'");
  });
  it('checks the UPC/EAN check digit', () => {
    const ok = withId('a.wav', 'A', { album: { upc: fromTag('0 36000 29145 2') } });
    expect(validateTrack(ok)).toEqual([]);
    const bad = withId('a.wav', 'A', { album: { upc: fromTag('036000291453') } });
    expect(validateTrack(bad)).toEqual([
      {
        level: 'error',
        field: 'album.upc',
        message: "UPC/EAN '036000291453' check digit is 3, expected 2",
      },
    ]);
  });
  it('warns about a year-only date and rejects Feb 29 of a common year', () => {
    expect(fields(validateTrack(withId('a.wav', 'A', { releaseDate: fromTag('2019') })))).toEqual([
      'warning:release_date',
    ]);
    expect(
      fields(validateTrack(withId('a.wav', 'A', { releaseDate: fromTag('2019-02-29') }))),
    ).toEqual(['error:release_date']);
    expect(validateTrack(withId('a.wav', 'A', { releaseDate: fromTag('2020-02-29') }))).toEqual([]);
  });
  it('checks an album date that differs from the track date', () => {
    const d = withId('a.wav', 'A', {
      releaseDate: fromTag('2020-01-01'),
      album: { releaseDate: fromTag('2021-02-30') },
    });
    expect(fields(validateTrack(d))).toEqual(['error:album.release_date']);
  });
  it('wants positive whole track positions and disk numbers', () => {
    for (const bad of ['0', 'a1', 'A-1', 'ABC1', '-2', '1.5']) {
      const d = withId('a.wav', 'A', {
        album: { trackPosition: fromTag(bad), diskNumber: fromTag(bad) },
      });
      expect(fields(validateTrack(d))).toEqual([
        'error:album.track_position',
        'error:album.disk_number',
      ]);
    }
    const ok = withId('a.wav', 'A', {
      album: { trackPosition: fromTag('03/12'), diskNumber: fromTag('1/2') },
    });
    expect(validateTrack(ok)).toEqual([]);
  });
  it("takes a vinyl side's position as a track position, not as a disk number", () => {
    for (const side of ['A1', 'B12', 'A', 'AA1', ' C3 ']) {
      const d = withId('a.wav', 'A', { album: { trackPosition: fromTag(side) } });
      expect(validateTrack(d)).toEqual([]);
    }
    const disk = withId('a.wav', 'A', {
      album: { trackPosition: fromTag('A1'), diskNumber: fromTag('A') },
    });
    expect(fields(validateTrack(disk))).toEqual(['error:album.disk_number']);
  });
  it("wants a vinyl side's positions unique per album and disk", () => {
    const album = (position: string) => ({
      upc: fromTag('036000291452'),
      trackPosition: fromTag(position),
    });
    const result = validateDelivery([
      withId('a1.wav', 'A', { album: album('A1') }),
      withId('a2.wav', 'B', { album: album('A2') }),
      withId('a1-again.wav', 'C', { album: album('A1') }),
      withId('1.wav', 'D', { album: album('1') }),
    ]);
    expect(result[0]![0]!.message).toBe('track A1 of disk 1 is also given to a1-again.wav');
    expect(fields(result[2]!)).toEqual(['error:album.track_position']);
    expect(result[1]).toEqual([]);
    expect(result[3]).toEqual([]);
  });
  it('offers to split "A feat. B", naming the split and carrying it, without splitting it', () => {
    const d = withId('a.wav', 'A', {
      artists: fromTag([
        { name: 'Simon & Garfunkel', role: 'Main' },
        { name: 'Jay-Z feat. Alicia Keys', role: 'Main' },
      ]),
    });
    expect(validateTrack(d)).toEqual([
      {
        level: 'warning',
        field: 'artists',
        message:
          "'Jay-Z feat. Alicia Keys' looks like several artists; split into Jay-Z (Main), Alicia Keys (Featured)?",
        fix: {
          kind: 'split-artist',
          index: 1,
          name: 'Jay-Z feat. Alicia Keys',
          into: [
            { name: 'Jay-Z', role: 'Main' },
            { name: 'Alicia Keys', role: 'Featured' },
          ],
        },
      },
    ]);
    expect(d.artists!.value).toHaveLength(2);
  });
  it('never offers to split a name holding a slash, such as AC/DC', () => {
    for (const name of ['AC/DC', 'AC/DC/Bon Scott', 'Earth, Wind & Fire']) {
      const d = withId('a.wav', 'A', { artists: fromTag([{ name, role: 'Main' }]) });
      expect(validateTrack(d)).toEqual([]);
    }
  });
  it('offers to split at a slash between names where the tag family joins values with it', () => {
    const credit = (joinedWith?: '/') =>
      withId('a.mp3', 'A', {
        artists: {
          value: [{ name: 'Beth Hart/Joe Bonamassa', role: 'Main' }],
          source: { kind: 'tag', tag: 'TPE1', ...(joinedWith ? { joinedWith } : {}) },
        },
      });
    expect(validateTrack(credit())).toEqual([]);
    expect(validateTrack(credit('/')).map((f) => splitOf(f)?.map((a) => a.name))).toEqual([
      ['Beth Hart', 'Joe Bonamassa'],
    ]);
  });
  it('warns when title or artists are missing', () => {
    const d = withId('a.wav', 'A');
    delete d.title;
    delete d.artists;
    expect(fields(validateTrack(d))).toEqual(['warning:title', 'warning:artists']);
  });
});

describe('validateDelivery()', () => {
  it('offers a split whose parts the rest of the library credits on their own', () => {
    const duet = withId('a.wav', 'A', {
      artists: fromTag([{ name: 'Jay-Z & Alicia Keys', role: 'Main' }]),
    });
    expect(validateDelivery([duet])).toEqual([[]]);
    const solo = withId('b.wav', 'B', { artists: fromTag([{ name: 'Jay-Z', role: 'Main' }]) });
    const [findings] = validateDelivery([duet, solo]);
    expect(findings!.map(splitOf)).toEqual([
      [
        { name: 'Jay-Z', role: 'Main' },
        { name: 'Alicia Keys', role: 'Main' },
      ],
    ]);
  });
  it('follows the library with a memo: a split offered once a part is credited alone, gone once it is not', () => {
    const duet = withId('a.wav', 'A', {
      artists: fromTag([{ name: 'Jay-Z & Alicia Keys', role: 'Main' }]),
    });
    const plain = withId('c.wav', 'C', {
      artists: fromTag([{ name: 'Ava Brandt', role: 'Main' }]),
    });
    const solo = withId('b.wav', 'B', { artists: fromTag([{ name: 'Jay-Z', role: 'Main' }]) });
    // The same draft objects validated again and again, as the app does after each change.
    const memo = new ValidationMemo();
    const validate = (drafts: DraftTrack[]) => validateLibrary(drafts, memo).tracks;
    expect(validate([duet, plain])).toEqual([[], []]);
    expect(validate([duet, plain, solo])[0]!.map(splitOf)).toHaveLength(1);
    expect(validate([duet, plain])).toEqual([[], []]);
  });
  it('gives each validation its own findings: duplicates found once never stay on a track', () => {
    const a = withId('a/1.wav', 'X');
    const b = withId('b/1.wav', 'X');
    const memo = new ValidationMemo();
    expect(fields(validateLibrary([a, b], memo).tracks[0]!)).toEqual(['error:outer_id']);
    expect(validateLibrary([a], memo).tracks).toEqual([[]]);
  });
  it('rejects an outer_id used twice, naming the other file', () => {
    const result = validateDelivery([
      withId('a/1.wav', 'X'),
      withId('b/1.wav', 'X'),
      withId('c.wav', 'Y'),
    ]);
    expect(result[0]).toEqual([
      expect.objectContaining({
        level: 'error',
        field: 'outer_id',
        message: expect.stringContaining('b/1.wav'),
      }),
    ]);
    expect(fields(result[1]!)).toEqual(['error:outer_id']);
    expect(result[2]).toEqual([]);
  });
  it('warns about the same ISRC on two tracks, whatever its spelling', () => {
    const result = validateDelivery([
      withId('1.wav', 'A', { isrc: fromTag('USRC17607839') }),
      withId('2.wav', 'B', { isrc: fromTag('us-rc1-76-07839') }),
    ]);
    expect(fields(result[0]!)).toEqual(['warning:isrc']);
    expect(fields(result[1]!)).toEqual(['warning:isrc']);
  });
  it('wants track positions unique per album and disk', () => {
    const album = (position: string, disk?: string, upc = '036000291452') => ({
      upc: fromTag(upc),
      trackPosition: fromTag(position),
      ...(disk ? { diskNumber: fromTag(disk) } : {}),
    });
    const result = validateDelivery([
      withId('1.wav', 'A', { album: album('1') }),
      withId('2.wav', 'B', { album: album('01', '1') }),
      withId('3.wav', 'C', { album: album('1', '2') }),
      withId('4.wav', 'D', { album: album('1', undefined, '4006381333931') }),
    ]);
    expect(fields(result[0]!)).toEqual(['error:album.track_position']);
    expect(result[1]![0]!.message).toBe('track 1 of disk 1 is also given to 1.wav');
    expect(result[2]).toEqual([]);
    expect(result[3]).toEqual([]);
  });
  it('groups albums by title when there is no UPC', () => {
    const result = validateDelivery([
      withId('1.wav', 'A', {
        album: { title: fromTag('Abbey Road'), trackPosition: fromTag('2') },
      }),
      withId('2.wav', 'B', {
        album: { title: fromTag('abbey road '), trackPosition: fromTag('2') },
      }),
    ]);
    // Both are track 2 of one album (track 1 missing is the album's finding, not the tracks'),
    // whose tracks spell its title two ways.
    expect(fields(result[1]!)).toEqual(['error:album.track_position', 'warning:album.title']);
  });
  it('tells two albums of one title by two artists apart, as the grid does', () => {
    const by = (artist: string, position: string) => ({
      artists: { value: [{ name: artist, role: 'Album Artist' }], source: fromTag('').source },
      album: { title: fromTag('Greatest Hits'), trackPosition: fromTag(position) },
    });
    const drafts = [
      withId('a/1.wav', 'A', by('Queen', '1')),
      withId('b/1.wav', 'B', by('ABBA', '1')),
      withId('b/2.wav', 'C', by('abba', '1')),
    ];
    const result = validateDelivery(drafts);
    expect(result[0]).toEqual([]);
    // One album by ABBA, its album artist spelt two ways.
    expect(fields(result[1]!)).toEqual(['error:album.track_position', 'warning:album.artist']);
    expect(result[2]![0]!.message).toBe('track 1 of disk 1 is also given to b/1.wav');
    expect(albumOf(drafts[0]!).key).not.toBe(albumOf(drafts[1]!).key);
    expect(albumOf(drafts[1]!).key).toBe(albumOf(drafts[2]!).key);
  });
  it('keeps a compilation without an album artist one album: its folder, disc folders included', () => {
    const track = (file: string, artist: string, position: string, disk: string) => ({
      artists: { value: [{ name: artist, role: 'Main' }], source: fromTag('').source },
      album: {
        title: fromTag('Now 45'),
        trackPosition: fromTag(position),
        diskNumber: fromTag(disk),
      },
    });
    const drafts = [
      withId('Now 45/CD1/01.flac', 'A', track('Now 45/CD1/01.flac', 'Adele', '1', '1')),
      withId('Now 45/CD1/02.flac', 'B', track('Now 45/CD1/02.flac', 'Blur', '1', '1')),
      withId('Now 45/Disc 2/01.flac', 'C', track('Now 45/Disc 2/01.flac', 'Cher', '1', '2')),
      withId('Other/01.flac', 'D', track('Other/01.flac', 'Adele', '1', '1')),
    ];
    const result = validateDelivery(drafts);
    expect(result[1]![0]!.message).toBe('track 1 of disk 1 is also given to Now 45/CD1/01.flac');
    expect(result[2]).toEqual([]);
    expect(result[3]).toEqual([]);
    expect(albumOf(drafts[0]!).key).toBe(albumOf(drafts[2]!).key);
    expect(albumOf(drafts[0]!).key).not.toBe(albumOf(drafts[3]!).key);
  });
  it('says an album whose positions skip numbers once, on the album, not on each of its tracks', () => {
    const at = (position: string) => ({
      album: { upc: fromTag('036000291452'), trackPosition: fromTag(position) },
    });
    const drafts = [withId('1.wav', 'A', at('1')), withId('3.wav', 'B', at('3'))];
    const { tracks, albums } = validateLibrary(drafts);
    expect(tracks).toEqual([[], []]);
    expect(albums.albums.map((a) => a.findings.map((f) => f.message))).toEqual([
      [
        'no track 2: a track is missing or numbered wrong (add it, or correct the Track # of the others)',
      ],
    ]);
    expect(validateDelivery(drafts)).toEqual(tracks);
  });
  it('keeps one album whose UPC some tracks lost the leading zero of, and says which spelling it has', () => {
    const on = (file: string, id: string, upc: string, position: string) =>
      withId(file, id, { album: { upc: fromTag(upc), trackPosition: fromTag(position) } });
    const drafts = [
      on('CD1/01.wav', 'A', '0036000291452', '1'),
      on('CD1/02.wav', 'B', '0036000291452', '2'),
      on('CD1/03.wav', 'C', '036000291452', '3'),
    ];
    expect(new Set(drafts.map((d) => albumOf(d).key)).size).toBe(1);
    const result = validateDelivery(drafts);
    expect(result[0]).toEqual([]);
    expect(result[2]).toEqual([
      {
        level: 'warning',
        field: 'album.upc',
        message:
          "UPC/EAN '036000291452' is 0036000291452 (as on CD1/01.wav, CD1/02.wav) written without its leading zeros, as a spreadsheet writes it; the same album: write it as 0036000291452",
      },
    ]);
  });
});

describe('validateLibrarySteps()', () => {
  // 1,000 tracks in 100 albums, one ISRC malformed, one outer_id used twice.
  const library = () =>
    Array.from({ length: 1000 }, (_, i) =>
      withId(`Album ${Math.floor(i / 10)}/${(i % 10) + 1}.flac`, i === 7 ? 'T6' : `T${i}`, {
        isrc: fromTag(i === 3 ? 'GB-AYE-06-0149' : `GBAYE06${String(i).padStart(5, '0')}`),
        album: {
          title: fromTag(`Album ${Math.floor(i / 10)}`),
          trackPosition: fromTag(`${(i % 10) + 1}`),
        },
      }),
    );

  it('yields every few hundred tracks, and ends with what validateLibrary gives at once', () => {
    const drafts = library();
    const steps = validateLibrarySteps(drafts);
    let yields = 0;
    for (let step = steps.next(); !step.done; step = steps.next()) yields++;
    // Each pass over the tracks yields (albums, names, facts, findings, groups): a page paints between.
    expect(yields).toBeGreaterThanOrEqual(10);
    const at = validateLibrary(drafts);
    expect(finish(validateLibrarySteps(drafts))).toEqual(at);
    expect(fields(at.tracks[3]!)).toEqual(['error:isrc']);
    expect(fields(at.tracks[7]!)).toEqual(['error:outer_id']);
  });

  it('hands back the same findings array for a track validated again unchanged', () => {
    const drafts = library();
    const memo = new ValidationMemo();
    const first = validateLibrary(drafts, memo).tracks;
    const edited = [...drafts];
    edited[3] = { ...drafts[3]!, isrc: fromTag('GBAYE0600003') };
    const again = validateLibrary(edited, memo).tracks;
    expect(again[0]).toBe(first[0]);
    expect(again[500]).toBe(first[500]);
    expect(again[3]).toEqual([]);
    // A finding the library adds (an outer_id used twice) is worked out again, not kept.
    expect(again[7]).toEqual(first[7]);
  });
});
