import { describe, expect, it } from 'vitest';

import {
  leftOutFilesLine,
  libraryInput,
  unusableReason,
} from '../../../src-main/core/delivery/library-input.js';
import { masterRead } from '../../../src-main/core/delivery/masters-check.js';

const manual = { kind: 'manual' as const };

describe('libraryInput()', () => {
  it('roots the delivery at the one folder every file was dropped from', () => {
    const input = libraryInput(
      [
        { id: '1', localPath: '/m/Album/CD1/a.flac', relativePath: 'Album/CD1/a.flac', size: 3 },
        { id: '2', localPath: '/m/Album/b.flac', relativePath: 'Album/b.flac', size: 4 },
      ],
      false,
    );
    expect(input.dir).toBe('/m/Album');
    expect(input.files.map((f) => f.path)).toEqual(['CD1/a.flac', 'b.flac']);
    expect(input.idOfPath.get('b.flac')).toBe('2');
  });

  it('keeps the dropped folders when files come from several', () => {
    const input = libraryInput(
      [
        { id: '1', localPath: '/m/A/a.flac', relativePath: 'A/a.flac', size: 3 },
        { id: '2', localPath: '/m/B/b.flac', relativePath: 'B/b.flac', size: 4 },
      ],
      false,
    );
    expect(input.dir).toBe('/m');
    expect(input.files.map((f) => f.path)).toEqual(['A/a.flac', 'B/b.flac']);
  });

  it('validates the reviewed drafts again across the whole delivery', () => {
    const draft = (file: string) => ({
      file,
      outerId: { value: 'same', source: manual },
      primaryMedia: { value: file, source: manual },
      title: { value: 'T', source: manual },
    });
    const input = libraryInput(
      [
        {
          id: '1',
          localPath: '/m/a.flac',
          relativePath: 'a.flac',
          size: 3,
          draft: draft('a.flac'),
        },
        {
          id: '2',
          localPath: '/m/b.flac',
          relativePath: 'b.flac',
          size: 4,
          draft: draft('b.flac'),
        },
      ],
      true,
    );
    expect(input.tracks[0]!.track).toMatchObject({ outer_id: 'same', title: 'T' });
    expect(input.tracks[1]!.findings).toContainEqual(
      expect.objectContaining({ level: 'error', field: 'outer_id' }),
    );
  });

  it('says what is wrong with an album once, for the pre-flight, naming the album', () => {
    const track = (n: number, upc: string) => {
      const file = `Tides/${n}.flac`;
      return {
        id: String(n),
        localPath: `/m/${file}`,
        relativePath: file,
        size: 3,
        draft: {
          file,
          outerId: { value: `T${n}`, source: manual },
          primaryMedia: { value: file, source: manual },
          title: { value: `Song ${n}`, source: manual },
          artists: { value: [{ name: 'Aurora Vale', role: 'Main' }], source: manual },
          album: {
            title: { value: 'Tides', source: manual },
            upc: { value: upc, source: manual },
            trackPosition: { value: String(n), source: manual },
          },
        },
      };
    };
    const files = [1, 2, 3, 5].map((n) => track(n, n === 2 ? '12345' : '5099902988023'));
    const input = libraryInput(files, true);
    expect(input.findings).toEqual([
      {
        level: 'warning',
        field: 'album.upc',
        message: '1 track disagrees on UPC: 3 have 5099902988023, 1 has 12345 (2.flac)',
        album: 'Tides',
      },
      {
        level: 'warning',
        field: 'album.track_position',
        message:
          'no track 4: a track is missing or numbered wrong (add it, or correct the Track # of the others)',
        album: 'Tides',
      },
    ]);
    // On the tracks: the odd UPC only (its error and its disagreement), no gap.
    expect(input.tracks.map((t) => t.findings.map((f) => `${f.level}:${f.field}`))).toEqual([
      [],
      ['error:album.upc', 'warning:album.upc'],
      [],
      [],
    ]);
  });
});

describe('leftOutFilesLine()', () => {
  it('names the files left out and why, five at most', () => {
    expect(leftOutFilesLine([])).toBeUndefined();
    expect(leftOutFilesLine([{ path: '03 Empty.mp3', reason: 'is empty (0 bytes)' }])).toBe(
      '1 file left out: 03 Empty.mp3 is empty (0 bytes)',
    );
    const many = Array.from({ length: 7 }, (_, i) => ({
      path: `0${i}\u0000.mp3`,
      reason: 'is empty (0 bytes)',
    }));
    expect(leftOutFilesLine(many)).toBe(
      `7 files left out: ${many
        .slice(0, 5)
        .map((f) => `${f.path.replace('\u0000', '\\u0000')} is empty (0 bytes)`)
        .join('; ')}; and 2 more`,
    );
  });
});

describe('unusableReason()', () => {
  it('says an empty file is empty, and an unread one why', () => {
    expect(unusableReason(0, undefined)).toBe('is empty (0 bytes)');
    expect(
      unusableReason(
        10,
        masterRead({
          file: 'a.mp3',
          draft: null,
          findings: [{ level: 'error', message: 'no audio found in the file' }],
        }),
      ),
    ).toBe("can't be delivered: no audio found in the file");
    expect(
      unusableReason(10, masterRead({ file: 'a.mp3', draft: { file: 'a.mp3' }, findings: [] })),
    ).toBeUndefined();
  });
});
