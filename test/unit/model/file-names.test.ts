import { describe, expect, it } from 'vitest';

import {
  audioByContentMessage,
  extensionOf,
  fileKind,
  fileStem,
  noExtensionMessage,
  opensForContent,
  sniffAudioExtension,
} from '../../../src-main/core/model/audio-formats.js';
import {
  applyFileNameMapping,
  mappingProblem,
  mappingToYaml,
  unfitFileNames,
} from '../../../src-main/core/model/filename-mapping.js';
import { finishScan, precheckFile, readFailure } from '../../../src-main/core/model/read-result.js';
import { draft, fromTag } from './helpers.js';

describe('audio formats', () => {
  it('classifies files by extension', () => {
    expect(fileKind('a/B.FLAC')).toBe('audio');
    expect(fileKind('x.aif')).toBe('audio');
    expect(fileKind('x.opus')).toBe('audio');
    // WMA is read (its tags and format shown); the profile's formats rule decides if it goes.
    expect(fileKind('x.wma')).toBe('audio');
    expect(fileKind('x.tak')).toBe('unsupported-audio');
    expect(fileKind('cover.jpg')).toBe('ignored');
    expect(fileKind('._song.mp3')).toBe('hidden');
    expect(fileKind('...mp3')).toBe('hidden');
    expect(fileKind('.git/x.mp3')).toBe('hidden');
    expect(fileKind('README')).toBe('ignored');
    expect(extensionOf('a.b/c')).toBe('');
    expect(fileStem('dir/My.Song.wav')).toBe('My.Song');
  });

  it('reads the other names of the formats it reads (FLAC, MPEG, MP4, Ogg)', () => {
    for (const name of ['x.fla', 'x.mpa', 'x.m2a', 'x.mpga', 'x.M4R', 'x.ogx']) {
      expect(fileKind(name), name).toBe('audio');
    }
  });

  it('never calls audio it cannot read "not an audio file"', () => {
    const formats = ['w64', 'snd', 'eac3', 'ec3', 'dts', 'thd', 'mlp', 'awb', '3ga', 'ofr', 'shn'];
    for (const name of formats.map((ext) => `x.${ext}`)) {
      expect(fileKind(name), name).toBe('unsupported-audio');
    }
  });

  it('opens a file named as no known kind, in case it holds audio', () => {
    for (const name of ['README', 'Track 01.mp3.part', 'take.bak', 'a/b.tmp', 'x.dat']) {
      expect(opensForContent(name), name).toBe(true);
    }
    const settled = ['cover.JPG', 'booklet.pdf', 'rip.log', 'album.cue', 'x.flac', 'x.tak'];
    for (const name of [...settled, '.hidden', 'a/.b/c.part', 'video.mov', 'Session.als']) {
      expect(opensForContent(name), name).toBe(false);
    }
  });
});

describe('file name mapping', () => {
  const mapping = { separator: '_', columns: ['outer_id', 'isrc', 'title'] as const };
  it('splits a name into the mapped fields', () => {
    expect(
      applyFileNameMapping('x/CAT01_USRC17607839_Thriller.wav', {
        ...mapping,
        columns: [...mapping.columns],
      }),
    ).toEqual({
      ok: true,
      values: { outer_id: 'CAT01', isrc: 'USRC17607839', title: 'Thriller' },
    });
  });
  it('reports names that do not fit', () => {
    const m = { ...mapping, columns: [...mapping.columns] };
    expect(unfitFileNames(['a_b_c.wav', 'a_b.wav', 'a__c.wav'], m)).toEqual([
      { path: 'a_b.wav', message: "'a_b' has 2 part(s) separated by '_', the mapping expects 3" },
      { path: 'a__c.wav', message: "'a__c' has an empty isrc (column_1)" },
    ]);
  });
  it('rejects mappings the service would not accept', () => {
    expect(mappingProblem({ separator: '-', columns: ['outer_id', 'album' as never] })).toMatch(
      /'album' is not a mapping field/,
    );
    expect(mappingProblem({ separator: '-', columns: ['title', 'title'] })).toMatch(/twice/);
    expect(mappingProblem({ separator: '', columns: ['title'] })).toMatch(/separator/);
    expect(mappingProblem({ separator: ' - ', columns: ['artist_name', 'title'] })).toMatch(
      /no column takes outer_id/,
    );
    expect(mappingProblem({ separator: ' - ', columns: ['outer_id', 'title'] })).toBeNull();
  });
  it('writes the YAML document of section 4.4', () => {
    expect(mappingToYaml({ separator: ' - ', columns: ['artist_name', 'title'] })).toBe(
      "mapping:\n  - separator: ' - '\n  - column_0: artist_name\n  - column_1: title\n",
    );
  });
});

describe('scan results', () => {
  it('lists non-audio as ignored, and empty or unsupported audio as errors', () => {
    expect(precheckFile('notes.txt', 10)?.findings).toEqual([
      { level: 'warning', message: 'ignored: not an audio file' },
    ]);
    expect(precheckFile('a.tak', 10)?.findings[0]?.level).toBe('error');
    expect(precheckFile('a.mp3', 0)?.findings).toEqual([
      { level: 'error', message: 'empty file (0 bytes)' },
    ]);
    expect(precheckFile('a.mp3', 10)).toBeNull();
    expect(
      readFailure('a.mp3', new Error('Invalid FLAC preamble: /abs/path/a.flac')).findings[0]!
        .message,
    ).toBe('cannot read the file (corrupt, truncated or not really audio): Invalid FLAC preamble');
  });
  it('assigns outer_ids across the scan and merges read and validation findings', () => {
    const entries = finishScan([
      { file: 'a.wav', draft: draft('a.wav', { isrc: fromTag('USRC17607839') }), findings: [] },
      {
        file: 'b.txt',
        draft: null,
        findings: [{ level: 'warning', message: 'ignored: not an audio file' }],
      },
      {
        file: 'c.wav',
        draft: draft('c.wav', { isrc: fromTag('USRC17607839') }),
        findings: [{ level: 'error', message: 'damaged' }],
      },
    ]);
    expect(entries.map((e) => e.track?.outer_id ?? null)).toEqual(['a', null, 'c']);
    expect(entries[2]!.findings.map((f) => f.message)).toEqual([
      'damaged',
      'ISRC USRC17607839 is also on a.wav',
    ]);
  });
});

describe('audio in a file without an extension', () => {
  const bytes = (...parts: Array<string | number[]>) =>
    new Uint8Array(
      parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)),
    );
  it('is found from its first bytes', () => {
    expect(sniffAudioExtension(bytes('ID3', [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe('mp3');
    expect(sniffAudioExtension(bytes([0xff, 0xfb, 0x90, 0x64], 'x'.repeat(12)))).toBe('mp3');
    expect(sniffAudioExtension(bytes('fLaC', 'x'.repeat(12)))).toBe('flac');
    expect(sniffAudioExtension(bytes('RIFF', [0, 0, 0, 0], 'WAVE', 'fmt '))).toBe('wav');
    expect(sniffAudioExtension(bytes('FORM', [0, 0, 0, 0], 'AIFF', 'COMM'))).toBe('aiff');
    expect(sniffAudioExtension(bytes([0, 0, 0, 32], 'ftypM4A ', 'xxxx'))).toBe('m4a');
    expect(sniffAudioExtension(bytes('OggS', 'x'.repeat(12)))).toBe('ogg');
    expect(sniffAudioExtension(bytes([0x1a, 0x45, 0xdf, 0xa3], 'x'.repeat(12)))).toBe('mka');
    expect(sniffAudioExtension(bytes('Dear diary, today'))).toBeNull();
    expect(sniffAudioExtension(bytes([0x89], 'PNG', 'x'.repeat(12)))).toBeNull();
  });

  it('is named so the user can fix it', () => {
    expect(noExtensionMessage('mp3')).toBe(
      'no file extension: read as .mp3 from its content; it is not delivered until its name ends in .mp3',
    );
    expect(audioByContentMessage('a/Track 01', 'mp3')).toBe(noExtensionMessage('mp3'));
    expect(audioByContentMessage('a/Track 01.flac.part', 'flac')).toBe(
      'named .part, but holds .flac audio (read from its content); it is not delivered until its name ends in .flac',
    );
  });
});
