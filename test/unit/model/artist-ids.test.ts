import { describe, expect, it } from 'vitest';

import {
  artistIdsLine,
  artistIdsNote,
  artistIdsText,
  sentArtistId,
  tracksWithOtherArtistIds,
  withArtistIdByName,
} from '../../../src-main/core/model/artist-ids.js';
import { draftToTrack } from '../../../src-main/core/model/ingestion-body.js';
import type { DraftTrack } from '../../../src-main/core/model/track.js';

const tag = { kind: 'tag', tag: 'TPE1' } as const;

function draft(artists: { name: string; role: string; id?: string }[]): DraftTrack {
  return { file: 'a.flac', artists: { value: artists, source: tag } };
}

describe('artist ids', () => {
  describe('sentArtistId()', () => {
    it('sends the label’s own id, and the name (NFC, trimmed) when there is none', () => {
      expect(sentArtistId({ name: 'Aurora Vale', id: ' av-001 ' })).toEqual({
        id: 'av-001',
        fromName: false,
      });
      expect(sentArtistId({ name: ' Cafe\u0301 Noir ', id: '  ' })).toEqual({
        id: 'Café Noir',
        fromName: true,
      });
    });

    it('is what the request body carries', () => {
      const body = draftToTrack(
        draft([
          { name: 'Aurora Vale', role: 'Main', id: 'av-001' },
          { name: 'Nils Berg', role: 'Featured' },
        ]),
      );
      expect(body.artists).toEqual([
        { id: 'av-001', name: 'Aurora Vale', role: 'Main' },
        { id: 'Nils Berg', name: 'Nils Berg', role: 'Featured' },
      ]);
    });
  });

  describe('tracksWithOtherArtistIds()', () => {
    it('counts, for each artist, the tracks that name it with another id, each track once', () => {
      const drafts = [
        draft([{ name: 'Lena Park', role: 'Main' }]),
        draft([
          { name: 'Lena Park', role: 'Main', id: 'LP-7' },
          { name: 'Lena Park', role: 'Composer' },
        ]),
        draft([{ name: ' Cafe\u0301 Noir ', role: 'Main', id: 'cn-1' }]),
        draft([{ name: 'Sam Reed', role: 'Main' }]),
      ];
      expect(
        tracksWithOtherArtistIds(drafts, [
          { name: 'Lena Park', id: 'LP-7' },
          { name: 'Café Noir', id: 'cn-1' },
          { name: 'Café Noir', id: 'cn-2' },
          { name: 'Nobody', id: 'x' },
        ]),
      ).toEqual([2, 0, 1, 0]);
    });
  });

  describe('withArtistIdByName()', () => {
    it('gives the id to that artist in every role and leaves the others alone', () => {
      const before = draft([
        { name: 'Aurora Vale', role: 'Main' },
        { name: 'Nils Berg', role: 'Featured', id: 'nb-7' },
        { name: 'Aurora Vale', role: 'Composer' },
      ]);
      const after = withArtistIdByName(before, 'Aurora Vale', 'av-001');
      expect(after.artists?.value).toEqual([
        { name: 'Aurora Vale', role: 'Main', id: 'av-001' },
        { name: 'Nils Berg', role: 'Featured', id: 'nb-7' },
        { name: 'Aurora Vale', role: 'Composer', id: 'av-001' },
      ]);
      expect(after.artists?.source).toEqual({ kind: 'manual' });
      expect(before.artists?.value[0]).toEqual({ name: 'Aurora Vale', role: 'Main' });
    });

    it('returns the same draft when nothing changes, and an empty id sends the name again', () => {
      const before = draft([{ name: 'Nils Berg', role: 'Main', id: 'nb-7' }]);
      expect(withArtistIdByName(before, 'Someone Else', 'x')).toBe(before);
      expect(withArtistIdByName(before, 'Nils Berg', 'nb-7')).toBe(before);
      expect(withArtistIdByName(before, 'Nils Berg', '').artists?.value).toEqual([
        { name: 'Nils Berg', role: 'Main' },
      ]);
    });
  });

  describe('artistIdsNote()', () => {
    it('counts the distinct artists sent with their names as ids', () => {
      const tracks = [
        draftToTrack(draft([{ name: 'Aurora Vale', role: 'Main' }])),
        draftToTrack(
          draft([
            { name: 'Aurora Vale', role: 'Main' },
            { name: 'Nils Berg', role: 'Featured', id: 'nb-7' },
          ]),
        ),
      ];
      const note = artistIdsNote(tracks)!;
      expect(note).toEqual({ fromName: 1, shown: ['Aurora Vale'] });
      // The one line both doors (the Deliver view, courier deliver --dry-run) print.
      expect(artistIdsLine(tracks)).toBe(artistIdsText(note));
      expect(artistIdsText(note)).toBe(
        '1 artist is sent with its name as its id ("Aurora Vale"); to send your own, set it in the Library (the inspector or the Artist ids column) or in a metadata sheet\'s artist_ids column',
      );
    });

    it('shows five names and says there are more', () => {
      const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
      const note = artistIdsNote([
        draftToTrack(draft(names.map((name) => ({ name, role: 'Main' })))),
      ])!;
      expect(artistIdsText(note)).toMatch(
        /^7 artists are sent with their names as their ids \("A", "B", "C", "D", "E", …\); /,
      );
    });

    it('says nothing when every artist has an id of the label’s own', () => {
      expect(artistIdsNote([draftToTrack(draft([{ name: 'A', role: 'Main', id: 'a-1' }]))])).toBe(
        undefined,
      );
      expect(artistIdsNote([{}])).toBe(undefined);
      expect(artistIdsLine([{}])).toBe(undefined);
    });
  });
});
