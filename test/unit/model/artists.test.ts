import { describe, expect, it } from 'vitest';

import {
  applyArtistSplit,
  applyArtistSplits,
  artistEvidence,
  mightSplit,
  type SplitContext,
  suggestArtistSplit,
} from '../../../src-main/core/model/artists.js';
import type { ArtistSplitFix } from '../../../src-main/core/model/track.js';
import { draft, fromTag } from './helpers.js';

/** The split offered, written as "A (Main) | B (Featured)", or null. */
function offered(name: string, context?: SplitContext): string | null {
  const split = suggestArtistSplit(name, 'Main', context);
  return split && split.map((a) => `${a.name} (${a.role})`).join(' | ');
}

describe('suggestArtistSplit()', () => {
  // Credits as taggers write them: [credit, the split offered or null when it is one act].
  const credits: Array<[string, string | null]> = [
    // Featuring marks always separate; the names after them are Featured.
    ['Jay-Z feat. Alicia Keys', 'Jay-Z (Main) | Alicia Keys (Featured)'],
    ['Daft Punk ft. Pharrell Williams', 'Daft Punk (Main) | Pharrell Williams (Featured)'],
    ['Santana featuring Rob Thomas', 'Santana (Main) | Rob Thomas (Featured)'],
    ['Eminem Feat Rihanna', 'Eminem (Main) | Rihanna (Featured)'],
    ['Mark Ronson (feat. Bruno Mars)', 'Mark Ronson (Main) | Bruno Mars (Featured)'],
    ['AC/DC feat. Bon Scott', 'AC/DC (Main) | Bon Scott (Featured)'],
    [
      'Santana featuring Rob Thomas; Michelle Branch',
      'Santana (Main) | Rob Thomas (Featured) | Michelle Branch (Featured)',
    ],
    ['Jay-Z feat. Earth, Wind & Fire', 'Jay-Z (Main) | Earth, Wind & Fire (Featured)'],
    // ";" always lists names.
    ['Björk; Thom Yorke', 'Björk (Main) | Thom Yorke (Main)'],
    // Collaboration marks, when a part is a name of its own and none is a backing band.
    ['Daft Punk x Pharrell', 'Daft Punk (Main) | Pharrell (Main)'],
    [
      'Armin van Buuren vs. Sophie Ellis-Bextor',
      'Armin van Buuren (Main) | Sophie Ellis-Bextor (Main)',
    ],
    ['AC/DC / Bon Scott', 'AC/DC (Main) | Bon Scott (Main)'],
    ['Spy vs Spy', null],
    ['Bob vs. the World', null],
    // Joins, when every part is a name of its own and none is a backing band.
    ['Beth Hart & Joe Bonamassa', 'Beth Hart (Main) | Joe Bonamassa (Main)'],
    ['Robert Plant and Alison Krauss', 'Robert Plant (Main) | Alison Krauss (Main)'],
    ['Calvin Harris, Dua Lipa', 'Calvin Harris (Main) | Dua Lipa (Main)'],
    [
      'Calvin Harris, Dua Lipa & Young Thug',
      'Calvin Harris (Main) | Dua Lipa (Main) | Young Thug (Main)',
    ],
    ['Paul Kalkbrenner + Fritz Kalkbrenner', 'Paul Kalkbrenner (Main) | Fritz Kalkbrenner (Main)'],
    ['The Weeknd & Daft Punk', 'The Weeknd (Main) | Daft Punk (Main)'],
    // One name: a slash or ampersand inside it, acts named after members or things, backing bands.
    ['AC/DC', null],
    ['AC/DC/Bon Scott', null],
    ['AT&T Jazz Band', null],
    ['Earth, Wind & Fire', null],
    ['Crosby, Stills, Nash & Young', null],
    ['Simon & Garfunkel', null],
    ['Hall & Oates', null],
    ['Mumford & Sons', null],
    ['Belle and Sebastian', null],
    ['Peter Bjorn and John', null],
    ['Ike & Tina Turner', null],
    ['Of Monsters and Men', null],
    ['Florence + the Machine', null],
    ['Nick Cave & The Bad Seeds', null],
    ['The Mamas & the Papas', null],
    ['Tyler, The Creator', null],
    ['Duke Ellington and His Orchestra', null],
    ['Ella Fitzgerald and Her Famous Orchestra', null],
    ['Bob Marley with The Wailers', null],
    ['Harry Connick, Jr.', null],
    ['Bonamassa, Joe', null],
    ['Little Feat', null],
    ['Feathers', null],
    ['Aftermath', null],
  ];
  it.each(credits)('%s → %s', (credit, split) => {
    expect(offered(credit)).toBe(split);
  });
  it('says a credit might split whenever some evidence makes it split, and not for a plain name', () => {
    // Evidence that every part is a name of its own, and slash joins: the most splits possible.
    const parts = (credit: string) =>
      credit.split(/[;&+,/()[\]]|\s(?:x|vs\.?|and|feat\.?|ft\.?|featuring)\s/i);
    for (const [credit] of credits) {
      const known = new Set(parts(credit).map((p) => p.trim().toLowerCase()));
      const split = offered(credit, { evidence: { known, kept: new Set() }, slashJoins: true });
      if (split !== null) expect(mightSplit(credit), credit).toBe(true);
    }
    for (const name of ['Ava Brandt', 'Björk', 'Feathers', 'Xavier Rudd', 'Andrés Vasquez']) {
      expect(mightSplit(name), name).toBe(false);
    }
  });

  it('splits at a bare "/" only where the tag family joins values with it, between names', () => {
    const id3v23 = { slashJoins: true };
    expect(offered('Beth Hart/Joe Bonamassa')).toBeNull();
    expect(offered('Beth Hart/Joe Bonamassa', id3v23)).toBe(
      'Beth Hart (Main) | Joe Bonamassa (Main)',
    );
    expect(offered('AC/DC', id3v23)).toBeNull();
    expect(offered('AC/DC/Bon Scott', id3v23)).toBeNull();
    expect(offered('Alice/Bob', id3v23)).toBeNull();
    const evidence = artistEvidence([
      draft('a.wav', { artists: fromTag([{ name: 'Alice', role: 'Main' }]) }),
      draft('b.wav', { artists: fromTag([{ name: 'Bob', role: 'Main' }]) }),
    ]);
    expect(offered('Alice/Bob', { ...id3v23, evidence })).toBe('Alice (Main) | Bob (Main)');
  });

  it('takes a part credited on its own elsewhere in the library as a name', () => {
    expect(offered('Jay-Z & Alicia Keys')).toBeNull();
    const library = [
      draft('a.wav', { artists: fromTag([{ name: 'Jay-Z', role: 'Main' }]) }),
      draft('b.wav', { artists: fromTag([{ name: 'Skrillex', role: 'Main' }]) }),
      draft('c.wav', { artists: fromTag([{ name: 'Diplo', role: 'Main' }]) }),
    ];
    const evidence = { evidence: artistEvidence(library) };
    expect(offered('Jay-Z & Alicia Keys', evidence)).toBe('Jay-Z (Main) | Alicia Keys (Main)');
    expect(offered('Skrillex x Diplo', evidence)).toBe('Skrillex (Main) | Diplo (Main)');
  });

  it('keeps whole a credit that a tagger lists whole beside other artists', () => {
    const listed = draft('a.wav', {
      artists: fromTag([
        { name: 'Daryl Hall & John Oates', role: 'Main' },
        { name: 'Someone Else', role: 'Main' },
      ]),
    });
    expect(offered('Daryl Hall & John Oates')).toBe('Daryl Hall (Main) | John Oates (Main)');
    expect(offered('Daryl Hall & John Oates', { evidence: artistEvidence([listed]) })).toBeNull();
    // A featuring mark still separates.
    expect(
      offered('Daryl Hall & John Oates feat. Jay-Z', { evidence: artistEvidence([listed]) }),
    ).toBe('Daryl Hall & John Oates (Main) | Jay-Z (Featured)');
  });
});

describe('applyArtistSplit()', () => {
  const track = () =>
    draft('a.wav', {
      artists: fromTag([
        { name: 'Jay-Z feat. Alicia Keys', role: 'Main' },
        { name: 'Alicia Keys', role: 'Featured' },
        { name: 'Shawn Carter', role: 'Composer' },
      ]),
    });
  const fix: ArtistSplitFix = {
    kind: 'split-artist',
    index: 0,
    name: 'Jay-Z feat. Alicia Keys',
    into: [
      { name: 'Jay-Z', role: 'Main' },
      { name: 'Alicia Keys', role: 'Featured' },
    ],
  };

  it('replaces the credit by its parts in place, as the user’s edit, without mutating', () => {
    const before = track();
    const copy = structuredClone(before);
    const after = applyArtistSplit(before, fix);
    expect(before).toEqual(copy);
    expect(after.artists).toEqual({
      // "Alicia Keys" was already credited as Featured: not added twice.
      value: [
        { name: 'Jay-Z', role: 'Main' },
        { name: 'Alicia Keys', role: 'Featured' },
        { name: 'Shawn Carter', role: 'Composer' },
      ],
      source: { kind: 'manual' },
    });
    expect(after.title).toBe(before.title);
  });

  it('applies several splits of one track, and skips one whose artist is no longer there', () => {
    const d = draft('a.wav', {
      artists: fromTag([
        { name: 'Beth Hart & Joe Bonamassa', role: 'Main' },
        { name: 'Tom Hambridge; Joe Bonamassa', role: 'Composer' },
      ]),
    });
    const [main, composer] = [0, 1].map((index) => {
      const { name, role } = d.artists!.value[index]!;
      return { kind: 'split-artist' as const, index, name, into: suggestArtistSplit(name, role)! };
    });
    expect(applyArtistSplits(d, [composer!, main!]).artists!.value).toEqual([
      { name: 'Beth Hart', role: 'Main' },
      { name: 'Joe Bonamassa', role: 'Main' },
      { name: 'Tom Hambridge', role: 'Composer' },
      { name: 'Joe Bonamassa', role: 'Composer' },
    ]);
    expect(applyArtistSplit(d, { ...main!, index: 1 })).toBe(d);
    expect(applyArtistSplit(track(), { ...fix, name: 'Someone' })).toEqual(track());
  });
});
