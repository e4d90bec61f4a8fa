/**
 * Real catalogs (#16): several ISRCs in the tags — the first valid one is the track's, the
 * others kept as references with a warning, never a blocking error; a year 0000, a disc 0 and a
 * track 0 are what taggers write for "not set", so they are absent, not errors; a WAV's own
 * year is refined by its ID3 date of the same year, never replaced by another year.
 */
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
  type TagFamily,
  writeTags,
} from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`tag tests need ${missing.join(', ')}`);
  console.warn(`skipping ISRC and zero-value tests: missing ${missing.join(', ')}`);
}

// Each file its own first ISRC (the outer_id comes from it), the same second one.
const files: Array<[string, FixtureFormat, TagFamily, string]> = [
  ['v23.mp3', 'mp3', 'id3v2.3', 'GBAYE2100101'],
  ['v24.mp3', 'mp3', 'id3v2.4', 'GBAYE2100102'],
  ['vorbis.flac', 'flac', 'vorbis', 'GBAYE2100103'],
  ['itunes.m4a', 'm4a-aac', 'mp4', 'GBAYE2100104'],
];

describe.skipIf(missing.length > 0)('ISRCs and zero values as taggers write them', () => {
  let root: string;
  let entries: ScanEntry[];
  const entry = (file: string) => entries.find((e) => e.file === file)!;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-isrcs-'));
    for (const [name, format, family, isrc] of files) {
      await makeTaggedAudio(format, join(root, 'two', name), family, {
        title: name,
        isrc: `${isrc}/USRC17607839`,
      });
    }
    await makeTaggedAudio('mp3', join(root, 'zero', 'zero.mp3'), 'id3v2.4', {
      title: 'Zero',
      isrc: 'GBAYE2100199',
      album: 'Zeros',
      date: '0000',
      disk: '0',
      track: '0',
    });
    await makeTaggedAudio('flac', join(root, 'zero', 'zero.flac'), 'vorbis', {
      title: 'Zero',
      isrc: 'GBAYE2100198',
      album: 'Zeros',
      date: '0000-00-00',
      disk: '0/0',
      track: '00',
    });
    await makeTaggedAudio('mp3', join(root, 'bad', 'bad.mp3'), 'id3v2.4', {
      title: 'Bad',
      isrc: 'NOT-AN-ISRC',
    });
    // A WAV carrying its own RIFF date (a year) and an ID3v2.3 tag with the full date.
    const wav = join(root, 'dates', 'both.wav');
    await makeAudio('wav', wav);
    await writeTags([{ path: wav, family: 'riff-info', tags: { title: 'Both', date: '2005' } }]);
    await writeTags([
      {
        path: wav,
        family: 'id3v2.3',
        tags: { title: 'Both', isrc: 'GBAYE2100197', date: '2005-03-02' },
      },
    ]);
    const other = join(root, 'dates', 'other-year.wav');
    await makeAudio('wav', other);
    await writeTags([{ path: other, family: 'riff-info', tags: { title: 'Other', date: '2005' } }]);
    await writeTags([
      {
        path: other,
        family: 'id3v2.3',
        tags: { title: 'Other', isrc: 'GBAYE2100196', date: '1999-03-02' },
      },
    ]);
    entries = finishScan(await scanFolder(root, { threads: 0 }));
  }, 60_000);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it.each(files)(
    '%s: the first ISRC is the track’s, the second a reference, with a warning',
    (name, _format, _family, isrc) => {
      const { track, findings } = entry(`two/${name}`);
      expect(track).toMatchObject({
        outer_id: isrc,
        isrc,
        references: [{ id: 'USRC17607839', source: 'isrc' }],
      });
      expect(findings.filter((f) => f.level === 'error')).toEqual([]);
      expect(findings).toContainEqual({
        level: 'warning',
        field: 'isrc',
        message: `the tags give 2 ISRCs: ${isrc} is the track's, USRC17607839 kept as reference(s)`,
      });
    },
  );

  it.each(['zero.mp3', 'zero.flac'])(
    '%s: year 0000, disc 0 and track 0 are absent, not errors',
    (name) => {
      const { track, findings } = entry(`zero/${name}`);
      expect(findings.filter((f) => f.level === 'error')).toEqual([]);
      expect(track?.release_date).toBeUndefined();
      expect(track?.albums).toEqual([{ title: 'Zeros' }]);
    },
  );

  it('takes the most precise date of the same year, whichever source gives it', () => {
    expect(entry('dates/both.wav').track?.release_date).toBe(20050302);
    // Its RIFF year stands (a year alone is no release_date to send), not the ID3 1999 date.
    expect(entry('dates/other-year.wav').track?.release_date).toBeUndefined();
  });

  it('keeps an ISRC that is not one, for validation to report', () => {
    const { track, findings } = entry('bad/bad.mp3');
    expect(track?.isrc).toBe('NOTANISRC');
    expect(findings).toContainEqual(expect.objectContaining({ level: 'error', field: 'isrc' }));
  });
});
