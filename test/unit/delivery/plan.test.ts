import { describe, expect, it } from 'vitest';

import { historyCsv } from '../../../src-main/core/delivery/history.js';
import {
  chooseFolder,
  type LocalFile,
  planDelivery,
  type PlanInput,
  shortName,
} from '../../../src-main/core/delivery/plan.js';

const now = new Date('2026-03-04T10:00:00Z');
const files = (paths: string[]): LocalFile[] =>
  paths.map((path) => ({ path, localPath: `/m/${path}`, size: 10 }));
const base = (over: Partial<PlanInput>): PlanInput => ({
  profile: { name: 'P', environment: 'development' },
  bucket: 'b',
  catalogId: 'c',
  mode: 'json',
  dir: '/m/Summer Masters',
  files: [],
  now,
  ...over,
});

describe('planDelivery', () => {
  it('chooses a dated folder, never one already used', () => {
    expect(shortName('/x/Été – Masters!')).toBe('ete-masters');
    expect(chooseFolder('/m/Summer', now, new Set())).toBe('20260304-summer');
    expect(chooseFolder('/m/Summer', now, new Set(['20260304-summer']))).toBe('20260304-summer-2');
  });

  it('makes json batches of at most 25 with primary_media relative to delivery/audio/', () => {
    const paths = Array.from({ length: 60 }, (_, i) => `d/${i}.mp3`);
    const plan = planDelivery(
      base({
        files: files(paths),
        tracks: paths.map((path, i) => ({
          path,
          track: { outer_id: `T${i}`, primary_media: path, title: `t${i}` },
          findings: [],
        })),
      }),
    );
    expect(plan.blocked).toBe(false);
    expect(plan.record.batches.map((b) => b.outerIds.length)).toEqual([25, 25, 10]);
    expect(plan.record.tracks![0]![0]!.primary_media).toBe('20260304-summer-masters/d/0.mp3');
    expect(plan.record.batches[0]!.keys[0]).toBe('delivery/audio/20260304-summer-masters/d/0.mp3');
    expect(plan.record.options).toEqual({
      ingestion_id: 'courier-20260304',
      overwrite_audio_file: true,
      delete_delivered_file: true,
      media_fetch_type: 's3',
    });
  });

  it('blocks on track errors and keeps warnings', () => {
    const plan = planDelivery(
      base({
        files: files(['a.mp3']),
        tracks: [
          {
            path: 'a.mp3',
            track: { outer_id: 'A', primary_media: 'a.mp3' },
            findings: [
              { level: 'error', field: 'isrc', message: 'bad ISRC' },
              { level: 'warning', field: 'title', message: 'no title' },
            ],
          },
        ],
      }),
    );
    expect(plan.blocked).toBe(true);
    expect(plan.findings.map((f) => f.level)).toEqual(['error', 'warning']);
  });

  it('puts audio_only files flat and blocks two files with one name, naming both', () => {
    const plan = planDelivery(
      base({ mode: 'audio_only', files: files(['x/a.mp3', 'y/a.mp3', 'b.mp3']) }),
    );
    expect(plan.blocked).toBe(true);
    expect(plan.findings[0]!.message).toContain("'x/a.mp3' and 'y/a.mp3'");
    const ok = planDelivery(base({ mode: 'audio_only', files: files(['x/a.mp3', 'b.mp3']) }));
    expect(ok.record.files.map((f) => f.key)).toEqual([
      'delivery/audio/20260304-summer-masters/a.mp3',
      'delivery/audio/20260304-summer-masters/b.mp3',
    ]);
    expect(ok.record.batches).toHaveLength(1);
  });

  it('checks every file name against the mapping and lists those that do not fit', () => {
    const plan = planDelivery(
      base({
        mode: 'audio_mapping',
        files: files(['ID1_Title.mp3', 'nope.mp3', 'ID3_.mp3']),
        mapping: { separator: '_', columns: ['outer_id', 'title'] },
      }),
    );
    expect(plan.findings.filter((f) => f.level === 'error').map((f) => f.path)).toEqual([
      'nope.mp3',
      'ID3_.mp3',
    ]);
    expect(plan.record.mapping?.yaml).toContain("separator: '_'");
    expect(plan.record.mapping?.name).toBe('20260304-summer-masters.yaml');
  });

  it('blocks an explicit folder that holds another delivery', () => {
    const plan = planDelivery(
      base({
        mode: 'audio_only',
        files: files(['a.mp3']),
        folder: 'taken',
        takenFolders: new Set(['taken']),
      }),
    );
    expect(plan.blocked).toBe(true);
  });

  it('download: URLs in primary_media, no files', () => {
    const plan = planDelivery(
      base({
        options: { media_fetch_type: 'download' },
        tracks: [{ track: { outer_id: 'U', primary_media: 'https://x.test/a.mp3' }, findings: [] }],
      }),
    );
    expect(plan.blocked).toBe(false);
    expect(plan.record.files).toEqual([]);
    expect(plan.record.tracks![0]![0]!.primary_media).toBe('https://x.test/a.mp3');
  });
});

describe('history CSV', () => {
  it('has a header and neutralises formulas', () => {
    const plan = planDelivery(
      base({ mode: 'audio_only', files: files(['a.mp3']), folder: '=cmd' }),
    );
    const csv = historyCsv([plan.record]);
    expect(csv.split('\r\n')[0]).toMatch(/^id,state,profile,/);
    expect(csv).toContain(`,'=cmd,`);
    // A tab or a carriage return first also starts a formula in some spreadsheets.
    const tabbed = historyCsv([{ ...plan.record, error: '\t=1+1' }]);
    expect(tabbed.trimEnd().endsWith(`,'\t=1+1`)).toBe(true);
  });
});
