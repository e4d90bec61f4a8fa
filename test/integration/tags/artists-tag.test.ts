/**
 * Real catalogs (#16): the multi-value ARTISTS tag MusicBrainz Picard and Discogs taggers write
 * beside ARTIST lists the credit's artists one by one; Courier takes the list, not the credit
 * as one invented artist — in every family that carries it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { finishScan, type ScanEntry } from '../../../src-main/core/model/read-result.js';
import { scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import {
  type FixtureFormat,
  makeAudio,
  makeTaggedAudio,
  missingFixtureTools,
  systemPython,
  type TagFamily,
} from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`tag tests need ${missing.join(', ')}`);
  console.warn(`skipping ARTISTS tests: missing ${missing.join(', ')}`);
}

const families: Array<[string, FixtureFormat, TagFamily]> = [
  ['v23.mp3', 'mp3', 'id3v2.3'],
  ['v24.mp3', 'mp3', 'id3v2.4'],
  ['vorbis.flac', 'flac', 'vorbis'],
  ['vorbis.ogg', 'ogg', 'vorbis'],
  ['itunes.m4a', 'm4a-aac', 'mp4'],
];

describe.skipIf(missing.length > 0)('the ARTISTS tag', () => {
  let root: string;
  let entries: ScanEntry[];
  const main = (file: string) =>
    entries
      .find((e) => e.file === file)!
      .track?.artists?.filter((a) => a.role === 'Main')
      .map((a) => a.name);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-artists-'));
    for (const [i, [name, format, family]] of families.entries()) {
      await makeTaggedAudio(format, join(root, name), family, {
        title: name,
        isrc: `GBAYE21001${String(i).padStart(2, '0')}`,
        artists: ['Beth Hart & Joe Bonamassa'],
        artistsTag: ['Beth Hart', 'Joe Bonamassa'],
      });
    }
    // v2.4 keeps each value apart: a name holding a slash stays whole.
    await makeTaggedAudio('mp3', join(root, 'acdc.mp3'), 'id3v2.4', {
      title: 'Thunder',
      isrc: 'GBAYE2100199',
      artists: ['AC/DC feat. Bon Scott'],
      artistsTag: ['AC/DC', 'Bon Scott'],
    });
    // Without ARTISTS, the ARTIST credit is read as before.
    await makeTaggedAudio('flac', join(root, 'plain.flac'), 'vorbis', {
      title: 'Plain',
      isrc: 'GBAYE2100198',
      artists: ['Beth Hart & Joe Bonamassa'],
    });
    // ID3v2.3 with values NUL-separated, as some writers do: several artists, a year twice.
    const nul = join(root, 'nul-v23.mp3');
    await makeAudio('mp3', nul);
    execFileSync(systemPython, [
      '-c',
      [
        'import sys',
        'from mutagen.id3 import ID3, TPE1, TYER, TIT2, TSRC',
        't = ID3()',
        "t.add(TIT2(encoding=3, text='Nul'))",
        "t.add(TSRC(encoding=3, text='GBAYE2100197'))",
        "t.add(TPE1(encoding=3, text=['Ray', 'Anita']))",
        "t.add(TYER(encoding=3, text=['2009', '2009']))",
        't.save(sys.argv[1], v2_version=3, v23_sep=None)',
      ].join('\n'),
      nul,
    ]);
    // ID3v2.3 credits holding "/" as written: spaces around it, and a name with one inside.
    for (const [file, credit] of [
      ['spaced-v23.mp3', 'Their / Théy / There'],
      ['acdc-v23.mp3', 'AC/DC'],
      ['utf16-v23.mp3', 'Björk / Sjón'],
    ]) {
      const path = join(root, file!);
      await makeAudio('mp3', path);
      execFileSync(systemPython, [
        '-c',
        [
          'import sys',
          'from mutagen.id3 import ID3, TPE1, TIT2',
          't = ID3()',
          "t.add(TIT2(encoding=3, text='Slash'))",
          `t.add(TPE1(encoding=${file === 'utf16-v23.mp3' ? 1 : 0}, text=[sys.argv[2]]))`,
          't.save(sys.argv[1], v2_version=3)',
        ].join('\n'),
        path,
        credit!,
      ]);
    }
    entries = finishScan(await scanFolder(root, { threads: 0 }));
  }, 60_000);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it.each(families)('%s: two artists, not one invented from the credit', (name) => {
    expect(main(name)).toEqual(['Beth Hart', 'Joe Bonamassa']);
  });

  it('keeps a name holding a slash whole where the family keeps values apart', () => {
    expect(main('acdc.mp3')).toEqual(['AC/DC', 'Bon Scott']);
  });

  it('keeps NUL-separated ID3v2.3 values apart: two artists, a year given twice', () => {
    expect(main('nul-v23.mp3')).toEqual(['Ray', 'Anita']);
    const entry = entries.find((e) => e.file === 'nul-v23.mp3')!;
    expect(entry.findings.filter((f) => f.level === 'error')).toEqual([]);
  });

  it('keeps an ID3v2.3 credit with "/" as written (spaces, Latin-1 or UTF-16)', () => {
    expect(main('spaced-v23.mp3')).toEqual(['Their / Théy / There']);
    expect(main('acdc-v23.mp3')).toEqual(['AC/DC']);
    expect(main('utf16-v23.mp3')).toEqual(['Björk / Sjón']);
  });

  it('reads ARTIST as before when there is no ARTISTS tag', () => {
    expect(main('plain.flac')).toEqual(['Beth Hart & Joe Bonamassa']);
  });
});
