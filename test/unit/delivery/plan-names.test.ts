import { describe, expect, it } from 'vitest';

import {
  type LocalFile,
  planDelivery,
  type PlanInput,
} from '../../../src-main/core/delivery/plan.js';

const now = new Date('2026-03-04T10:00:00Z');
const composed = 'Caf\u00e9.mp3';
const decomposed = 'Cafe\u0301.mp3';
const files = (paths: string[], size = 10): LocalFile[] =>
  paths.map((path) => ({ path, localPath: `/m/${path}`, size }));
const tracksOf = (paths: string[], outerId = (i: number) => `T${i}`) =>
  paths.map((path, i) => ({
    path,
    track: { outer_id: outerId(i), primary_media: path, title: `t${i}` },
    findings: [],
  }));
const base = (over: Partial<PlanInput>): PlanInput => ({
  profile: { name: 'P', environment: 'development' },
  bucket: 'b',
  catalogId: 'c',
  mode: 'json',
  dir: '/m/Masters',
  files: [],
  now,
  ...over,
});
const errors = (input: PlanInput) =>
  planDelivery(input).findings.filter((f) => f.level === 'error');

describe('planDelivery: names', () => {
  it.each(['audio_only', 'audio_mapping'] as const)(
    'blocks two names equal in NFC in %s mode, naming both paths',
    (mode) => {
      const found = errors(
        base({
          mode,
          files: files([composed, `sub/${decomposed.normalize('NFC')}`]),
          mapping: { separator: '_', columns: ['outer_id'] },
        }),
      );
      expect(found[0]!.message).toContain(`'${composed}' and 'sub/${composed}' share`);
    },
  );

  it('blocks two paths equal in NFC in json mode, where sub-folders are kept', () => {
    const paths = [`a/${composed}`, `a/${composed}`];
    const listed = files(paths);
    listed[1]!.localPath = `/m/a/${decomposed}`;
    const found = errors(base({ files: listed, tracks: tracksOf(paths) }));
    expect(found[0]!.message).toContain('NFC');
    expect(found[0]!.message).toContain(`'a/${composed}' and 'a/${composed} (decomposed)'`);
  });

  it('delivers a lone decomposed (NFD) name in json mode, under its NFC key', () => {
    const plan = planDelivery(
      base({ files: files([decomposed]), tracks: tracksOf([decomposed.normalize('NFC')]) }),
    );
    expect(plan.blocked).toBe(false);
    expect(plan.record.files[0]!.key).toBe(`delivery/audio/20260304-masters/${composed}`);
    expect(plan.record.tracks![0]![0]!.primary_media).toBe(`20260304-masters/${composed}`);
  });

  it('reports a file whose name holds a backslash (legal on macOS and Linux), keeping it out', () => {
    const paths = ['AC\\DC.mp3', 'ok.mp3'];
    const plan = planDelivery(base({ files: files(paths), tracks: tracksOf(paths) }));
    const found = plan.findings.filter((f) => f.level === 'error' && f.path === 'AC\\DC.mp3');
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/^The path "AC\\DC\.mp3" contains a backslash[^\n]*$/);
    expect(plan.record.files.map((f) => f.key)).toEqual(['delivery/audio/20260304-masters/ok.mp3']);
  });

  it('blocks two tracks given one outer_id (by tags, CSV or edits), naming both files', () => {
    const paths = ['1.mp3', '2.mp3', '3.mp3'];
    const found = errors(
      base({ files: files(paths), tracks: tracksOf(paths, (i) => (i < 2 ? 'SAME' : 'OTHER')) }),
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/outer_id 'SAME' is given to 2 tracks .*'1.mp3'.*'2.mp3'/);
  });

  it('blocks two files the mapping gives one outer_id', () => {
    const found = errors(
      base({
        mode: 'audio_mapping',
        files: files(['X1_a.mp3', 'X1_b.mp3']),
        mapping: { separator: '_', columns: ['outer_id', 'title'] },
      }),
    );
    expect(found.some((f) => f.message.startsWith("outer_id 'X1' is given to 2 files"))).toBe(true);
  });

  it('blocks empty files and audio Courier cannot read in folder modes too', () => {
    const found = errors(
      base({ mode: 'audio_only', files: [...files(['a.mp3'], 0), ...files(['b.tak'])] }),
    );
    expect(found.map((f) => [f.path, f.message.split(';')[0]])).toEqual([
      ['a.mp3', 'empty file (0 bytes)'],
      ['b.tak', 'an audio format Courier cannot read, so cannot check or deliver'],
    ]);
  });

  it('blocks a file name longer than the bucket takes, before any upload', () => {
    const long = `${'n'.repeat(240)}.mp3`;
    const found = errors(base({ mode: 'audio_only', files: files([long]) }));
    expect(found[0]!.message).toMatch(/longer than 200 bytes/);
    expect(found[0]!.path).toBe(long);
  });
});
