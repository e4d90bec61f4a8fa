import { describe, expect, it } from 'vitest';

import {
  artistCreditText,
  parseArtistCredit,
  withArtistCredit,
} from '../../../src-main/core/model/artist-credit.js';
import type { DraftArtist, DraftTrack } from '../../../src-main/core/model/track.js';

const tag = { kind: 'tag' as const, tag: 'TPE1' };
const manual = { kind: 'manual' as const };
const track = (artists: DraftArtist[]): DraftTrack => ({
  file: 'A/01.flac',
  artists: { value: artists, source: tag },
});

describe('artist credit line', () => {
  it('shows every artist with its role, main artists first, the album artist left out', () => {
    const draft = track([
      { name: 'Ida Lund', role: 'Producer' },
      { name: 'Aurora Vale', role: 'Main' },
      { name: 'Nils Berg', role: 'Featured' },
      { name: 'Aurora Vale', role: 'Album Artist' },
      { name: 'Lena Park', role: 'Main' },
      { name: 'Mara Lind', role: 'Composer' },
    ]);
    expect(artistCreditText(draft)).toBe(
      'Aurora Vale; Lena Park · prod. Ida Lund · feat. Nils Berg · Composer: Mara Lind',
    );
    expect(artistCreditText(track([{ name: 'Aurora Vale', role: 'Main' }]))).toBe('Aurora Vale');
    expect(artistCreditText({ file: 'x.flac' })).toBe('');
  });

  it('starts with the separator when no artist is main, so the role is not read as a name', () => {
    const draft = track([{ name: 'Nils Berg', role: 'Featured' }]);
    expect(artistCreditText(draft)).toBe('· feat. Nils Berg');
    expect(parseArtistCredit('· feat. Nils Berg')).toEqual([
      { name: 'Nils Berg', role: 'Featured' },
    ]);
  });

  it('reads a line back to the same artists', () => {
    expect(
      parseArtistCredit('Aurora Vale; Lena Park · feat. Nils Berg · Remixer: St. Vincent'),
    ).toEqual([
      { name: 'Aurora Vale', role: 'Main' },
      { name: 'Lena Park', role: 'Main' },
      { name: 'Nils Berg', role: 'Featured' },
      { name: 'St. Vincent', role: 'Remixer' },
    ]);
  });

  it('writes a line back: ids kept for artists named again, album artists untouched', () => {
    const draft = track([
      { name: 'Aurora Vale', role: 'Main', id: 'AV-1' },
      { name: 'Nils Berg', role: 'Featured' },
      { name: 'Aurora Vale', role: 'Album Artist', id: 'AV-1' },
    ]);
    expect(withArtistCredit(draft, 'Aurora Vale · feat. Nils Berg', manual)).toBe(draft);
    const next = withArtistCredit(draft, 'Aurora Vale · prod. Ida Lund', manual);
    expect(next.artists).toEqual({
      value: [
        { name: 'Aurora Vale', role: 'Main', id: 'AV-1' },
        { name: 'Ida Lund', role: 'Producer' },
        { name: 'Aurora Vale', role: 'Album Artist', id: 'AV-1' },
      ],
      source: manual,
    });
    expect(
      withArtistCredit(track([{ name: 'X', role: 'Main' }]), '', manual).artists,
    ).toBeUndefined();
  });
});
