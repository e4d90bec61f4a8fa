/**
 * Real catalogs (#16): several ISRCs in the tags — the first valid one is the track's, the
 * others kept as references with a warning, never a blocking error; a year 0000, a disc 0 and a
 * track 0 are what taggers write for "not set", so they are absent, not errors.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { finishScan, type ScanEntry } from '../../../src-main/core/model/read-result.js';
import { scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import {
  type FixtureFormat,
  makeTaggedAudio,
  missingFixtureTools,
  type TagFamily,
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

  it('keeps an ISRC that is not one, for validation to report', () => {
    const { track, findings } = entry('bad/bad.mp3');
    expect(track?.isrc).toBe('NOTANISRC');
    expect(findings).toContainEqual(expect.objectContaining({ level: 'error', field: 'isrc' }));
  });
});
