import { describe, expect, it } from 'vitest';

import { reviewAlbums, withAlbumFix } from '../../../src-main/core/model/album-review.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';
import { validateLibrary } from '../../../src-main/core/model/validate.js';
import { draft, fromTag } from './helpers.js';

const UPC = '0602445566778';

/** Track `n` of a 12-track album in one folder, with album artist and label. */
function track(n: number, album: Partial<Record<'upc' | 'title' | 'label', string>> = {}) {
  const file = `Harbour Lights/${String(n).padStart(2, '0')} Song ${n}.flac`;
  return draft(file, {
    outerId: fromTag(`T${n}`),
    artists: fromTag([
      { name: 'Aurora Vale', role: 'Main' },
      { name: 'Aurora Vale', role: 'Album Artist' },
    ]),
    album: {
      title: fromTag(album.title ?? 'Harbour Lights'),
      upc: fromTag(album.upc ?? UPC),
      label: fromTag(album.label ?? 'Tidal Records'),
      trackPosition: fromTag(String(n)),
    },
  });
}

const album12 = (change: (n: number) => Parameters<typeof track>[1] = () => ({})) =>
  Array.from({ length: 12 }, (_, i) => track(i + 1, change(i + 1)));

const messages = (findings: { message: string }[] | undefined) =>
  (findings ?? []).map((f) => f.message);

describe('reviewAlbums()', () => {
  it('keeps an album one whose UPC one track writes with 12 digits, with no finding', () => {
    const drafts = album12((n) => (n === 7 ? { upc: UPC.slice(1) } : {}));
    const { albums } = reviewAlbums(drafts);
    expect(albums).toHaveLength(1);
    expect(albums[0]!.upc).toBe(UPC);
    expect(albums[0]!.findings).toEqual([]);
    expect(albums[0]!.lines.filter((l) => l.kind === 'missing')).toEqual([]);
  });

  it('says once that one track disagrees on an invalid UPC, warns that track only, and sees no gap', () => {
    const drafts = album12((n) => (n === 7 ? { upc: '12345' } : {}));
    const { albums, trackFindings } = reviewAlbums(drafts);
    expect(albums).toHaveLength(1);
    const [album] = albums;
    expect(album!.title).toBe('Harbour Lights');
    expect(album!.upc).toBe(UPC);
    expect(messages(album!.findings)).toEqual([
      `1 track disagrees on UPC: 11 have ${UPC}, 1 has 12345 (07 Song 7.flac)`,
    ]);
    expect(album!.findings[0]!.fix).toEqual({
      kind: 'album-field',
      column: 'upc',
      value: UPC,
      indexes: [6],
      label: `Use ${UPC} on all 12 tracks`,
    });
    expect([...trackFindings.keys()]).toEqual([6]);
    expect(messages(trackFindings.get(6))).toEqual([
      `UPC 12345 differs from the other 11 tracks of 'Harbour Lights' (${UPC}); use the album panel to set one UPC on every track`,
    ]);
  });

  it('leaves the eleven tracks without a gap warning and the odd one not clear, in validation', () => {
    const drafts = album12((n) => (n === 10 ? { upc: '12345' } : {}));
    const { tracks } = validateLibrary(drafts);
    tracks.forEach((found, i) => {
      if (i === 9) return;
      expect(found, drafts[i]!.file).toEqual([]);
    });
    expect(tracks[9]!.map((f) => `${f.level}:${f.field}`)).toEqual([
      'error:album.upc',
      'warning:album.upc',
    ]);
  });

  it('sees a missing UPC, title and label as disagreements with a fix that fills them in', () => {
    const drafts = album12();
    const bare = { ...drafts[2]!, album: { trackPosition: fromTag('3') } };
    drafts[2] = bare;
    const { albums } = reviewAlbums(drafts);
    expect(albums).toHaveLength(1);
    expect(messages(albums[0]!.findings)).toEqual([
      `1 track disagrees on UPC: 11 have ${UPC}, 1 has none (03 Song 3.flac)`,
      "1 track disagrees on album title: 11 have 'Harbour Lights', 1 has none (03 Song 3.flac)",
      "1 track disagrees on label: 11 have 'Tidal Records', 1 has none (03 Song 3.flac)",
    ]);
    let fixed: DraftTrack = bare;
    for (const finding of albums[0]!.findings) fixed = withAlbumFix(fixed, finding.fix!);
    drafts[2] = fixed;
    expect(reviewAlbums(drafts).albums[0]!.findings).toEqual([]);
    expect(fixed.album?.upc?.source).toEqual({ kind: 'manual' });
  });

  it('offers no fix when the tracks split evenly, and warns every one of them', () => {
    const other = '4006381333931';
    const drafts = album12((n) => (n > 6 ? { upc: other } : {}));
    const { albums, trackFindings } = reviewAlbums(drafts);
    expect(albums).toHaveLength(1);
    expect(messages(albums[0]!.findings)).toEqual([
      `12 tracks disagree on UPC: 6 have ${UPC}, 6 have ${other}`,
    ]);
    expect(albums[0]!.findings[0]!.fix).toBeUndefined();
    expect(trackFindings.size).toBe(12);
  });

  it('keeps two editions of one title apart: each valid UPC on several tracks, in two folders', () => {
    const edition = (folder: string, upc: string, n: number) =>
      draft(`${folder}/${n}.flac`, {
        artists: fromTag([{ name: 'Aurora Vale', role: 'Album Artist' }]),
        album: { title: fromTag('Best Of'), upc: fromTag(upc), trackPosition: fromTag(String(n)) },
      });
    const drafts = [
      edition('Best Of', UPC, 1),
      edition('Best Of', UPC, 2),
      edition('Best Of (Deluxe)', '4006381333931', 1),
      edition('Best Of (Deluxe)', '4006381333931', 2),
    ];
    const { albums } = reviewAlbums(drafts);
    expect(albums.map((a) => a.indexes)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(albums.flatMap((a) => a.findings)).toEqual([]);
  });

  it('keeps a folder of several albums apart', () => {
    const single = (title: string, n: number) =>
      draft(`Singles/${n}.flac`, {
        album: { title: fromTag(title), trackPosition: fromTag('1') },
      });
    const { albums } = reviewAlbums([single('One', 1), single('Two', 2)]);
    expect(albums).toHaveLength(2);
    expect(albums.flatMap((a) => a.findings)).toEqual([]);
  });

  it('lists the tracks by disk and position with the gaps as missing lines and duplicates marked', () => {
    const at = (file: string, position: string, disk = '1') =>
      draft(file, {
        album: {
          title: fromTag('Tides'),
          upc: fromTag(UPC),
          trackPosition: fromTag(position),
          diskNumber: fromTag(disk),
        },
      });
    const drafts = [
      at('a.flac', '4'),
      at('b.flac', '1'),
      at('c.flac', '4'),
      at('d.flac', '2', '2'),
    ];
    const [album] = reviewAlbums(drafts).albums;
    expect(
      album!.lines.map((l) =>
        l.kind === 'missing'
          ? `${l.disk}-${l.position} missing`
          : `${l.disk}-${l.position} ${drafts[l.index]!.file}${l.duplicate ? ' duplicate' : ''}`,
      ),
    ).toEqual([
      '1-1 b.flac',
      '1-2 missing',
      '1-3 missing',
      '1-4 a.flac duplicate',
      '1-4 c.flac duplicate',
      '2-2 d.flac',
    ]);
    // A lone track on disk 2 says nothing of gaps; disk 1's are one album finding.
    expect(messages(album!.findings)).toEqual([
      'no track 2, 3 on disk 1: tracks are missing or numbered wrong (add them, or correct the Track # of the others)',
    ]);
  });
});
