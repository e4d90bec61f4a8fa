/**
 * Audio under names other than the usual (#16: "nothing with an audio extension or audio content
 * is 'not an audio file'"): the other names of the formats Courier reads are read; audio it
 * cannot read is said to be audio; a file named as no known kind (a download's `.part`, an
 * editor's `.bak`) is opened, and audio found in it is read and shown, but not delivered until it
 * is named for what it is. Artwork and documents are still settled by name, unopened.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DeliveryMode } from '../../../src-main/core/delivery/delivery-record.js';
import { planDelivery } from '../../../src-main/core/delivery/plan.js';
import { prepareDelivery } from '../../../src-main/core/delivery/prepare.js';
import { unsupportedAudioMessage } from '../../../src-main/core/model/audio-formats.js';
import type { FileReadResult } from '../../../src-main/core/model/read-result.js';
import { scanFolder } from '../../../src-main/core/tags/scan-folder.js';
import { makeAudio, makeTaggedAudio, missingFixtureTools } from '../../support/audio-fixtures.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`needs ${missing.join(', ')}`);
  console.warn(`skipping audio-by-content: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('audio under other names', () => {
  let root: string;
  const byFile = new Map<string, FileReadResult>();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'courier-by-content-'));
    const flac = join(root, 'template.flac');
    const mp3 = join(root, 'template.mp3');
    await makeTaggedAudio('flac', flac, 'vorbis', { title: 'Low Tide', artists: ['Aurora Vale'] });
    await makeTaggedAudio('mp3', mp3, 'id3v2.4', { title: 'High Tide', artists: ['Nils Berg'] });
    await copyFile(flac, join(root, 'a.fla'));
    await copyFile(mp3, join(root, 'b.mpa'));
    await copyFile(flac, join(root, 'c.flac.part'));
    await copyFile(mp3, join(root, 'd.bak'));
    // Bytes of audio under a name that says artwork: settled by the name, never opened.
    await copyFile(mp3, join(root, 'cover.jpg'));
    await writeFile(join(root, 'notes.tmp'), 'not audio at all, though named as no known kind\n');
    await makeAudio('wav', join(root, 'e.wav'));
    await copyFile(join(root, 'e.wav'), join(root, 'e.w64'));
    for (const result of await scanFolder(root)) byFile.set(result.file, result);
    // A folder to deliver: one master named as audio, the same audio under two other names.
    const masters = join(root, 'masters');
    await mkdir(masters);
    await copyFile(flac, join(masters, 'Track 01.flac'));
    await copyFile(flac, join(masters, 'Track 01.flac.part'));
    await copyFile(mp3, join(masters, 'Track 02'));
    await copyFile(mp3, join(masters, 'cover.jpg'));
  }, 60_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads the other names of FLAC and MPEG audio as what they are', () => {
    const fla = byFile.get('a.fla')!;
    expect(fla.draft?.title?.value).toBe('Low Tide');
    expect(fla.audio?.format).toBe('flac');
    expect(fla.findings.map((f) => f.message).join()).not.toMatch(/content/);
    const mpa = byFile.get('b.mpa')!;
    expect(mpa.draft?.title?.value).toBe('High Tide');
    expect(mpa.audio?.format).toBe('mp3');
  });

  it('reads audio found in a file named as no known kind, and says how to deliver it', () => {
    const part = byFile.get('c.flac.part')!;
    expect(part.draft?.title?.value).toBe('Low Tide');
    expect(part.audio?.format).toBe('flac');
    expect(part.findings).toContainEqual({
      level: 'warning',
      message:
        'named .part, but holds .flac audio (read from its content); it is not delivered until its name ends in .flac',
    });
    const bak = byFile.get('d.bak')!;
    expect(bak.draft?.title?.value).toBe('High Tide');
    expect(bak.findings[0]?.message).toMatch(/^named \.bak, but holds \.mp3 audio/);
  });

  it('says audio it cannot read is audio, not "not an audio file"', () => {
    expect(byFile.get('e.w64')).toEqual({
      file: 'e.w64',
      draft: null,
      findings: [{ level: 'error', message: unsupportedAudioMessage }],
    });
  });

  it('leaves artwork, and a file that turns out not to be audio, as not audio', () => {
    const notAudio = [{ level: 'warning', message: 'ignored: not an audio file' }];
    expect(byFile.get('cover.jpg')).toEqual({ file: 'cover.jpg', draft: null, findings: notAudio });
    expect(byFile.get('notes.tmp')).toEqual({
      file: 'notes.tmp',
      draft: null,
      findings: notAudio,
    });
  });

  it.each<DeliveryMode>(['json', 'audio_only'])(
    'delivers without it in %s mode, and says which file is left out and how to deliver it',
    async (mode) => {
      const dir = join(root, 'masters');
      const prepared = await prepareDelivery({ dir, mode });
      const plan = planDelivery({
        dir,
        mode,
        profile: { name: 'Test', environment: 'development' },
        bucket: 'bucket',
        catalogId: 'catalog',
        files: prepared.files,
        tracks: prepared.tracks,
      });
      // As the delivery service puts them: what preparing found first, then the plan's.
      const findings = [...prepared.findings, ...plan.findings];
      expect(plan.blocked).toBe(false);
      expect(plan.record.files.map((f) => f.path)).toEqual(['Track 01.flac']);
      if (mode === 'json') expect(plan.record.batches[0]!.outerIds).toHaveLength(1);
      expect(findings).toEqual(
        expect.arrayContaining([
          {
            level: 'warning',
            message: '3 file(s) left out: 2 audio not named as audio (below), 1 not audio',
          },
          {
            level: 'warning',
            path: 'Track 01.flac.part',
            message:
              'named .part, but holds .flac audio (read from its content); it is not delivered until its name ends in .flac',
          },
          {
            level: 'warning',
            path: 'Track 02',
            message:
              'no file extension: read as .mp3 from its content; it is not delivered until its name ends in .mp3',
          },
        ]),
      );
      expect(findings.filter((f) => f.level === 'error')).toEqual([]);
    },
  );
});
