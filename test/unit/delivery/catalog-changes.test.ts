/**
 * Where each track stands against the catalog (#15): the field-level diff, a removed field kept
 * or removed, the summary per album with the tracks left out, and the tracks gone from the folder.
 */
import { describe, expect, it } from 'vitest';

import {
  catalogChanges,
  catalogSummary,
  fieldDiff,
  overDelivered,
} from '../../../src-main/core/delivery/catalog-changes.js';
import type { PlannedTrack } from '../../../src-main/core/delivery/plan.js';
import type { LedgerEntry } from '../../../src-main/core/ledger/catalog-ledger.js';
import { clearedFields } from '../../../src-main/core/model/ingestion-body.js';
import type { DraftTrack, Track } from '../../../src-main/core/model/track.js';

const tag = { kind: 'tag', tag: 'TIT2' } as const;
const delivered: Track = {
  outer_id: 'ISRC1',
  primary_media: '20261101-a/01.flac',
  title: 'Harbour',
  isrc: 'GBABC2600001',
  albums: [{ title: 'Night Shift', type: 'Album' }],
  customer_tags: [{ category: 'Mood', tag: 'Calm' }],
};
const entry = (body: Track, md5 = 'm1'): LedgerEntry => ({
  outer_id: body.outer_id,
  mode: 'json',
  path: 'Night Shift/01.flac',
  localPath: '/music/Night Shift/01.flac',
  md5,
  primary_media: body.primary_media,
  body,
  delivery: 'd1',
  at: '2026-11-01T10:00:00.000Z',
});

describe('fieldDiff()', () => {
  it('names changed top-level and album fields, and the removed ones', () => {
    const after = { ...delivered, title: 'Harbour (Edit)', albums: [{ title: 'Night Shift' }] };
    delete (after as Partial<Track>).customer_tags;
    expect(fieldDiff(delivered, after)).toEqual({
      fields: ['title', 'albums[0].type', 'customer_tags'],
      removed: ['albums[0].type', 'customer_tags'],
    });
  });
});

describe('overDelivered()', () => {
  const now: Track = { outer_id: 'ISRC1', primary_media: 'x', title: 'Harbour (Edit)' };
  it('keeps every field delivered before that is not given now', () => {
    const { body, kept } = overDelivered(delivered, now);
    expect(body.customer_tags).toEqual(delivered.customer_tags);
    expect(body.title).toBe('Harbour (Edit)');
    expect(kept).toEqual(['isrc', 'albums', 'customer_tags']);
  });

  it('removes the fields the user removed in review', () => {
    const { body } = overDelivered(delivered, { ...now, albums: [{ title: 'Night Shift' }] }, [
      'customer_tags',
      'albums[0].type',
    ]);
    expect(body.customer_tags).toBeUndefined();
    expect(body.albums).toEqual([{ title: 'Night Shift' }]);
  });
});

describe('clearedFields()', () => {
  it('names the body fields the tags gave and the edited draft no longer has', () => {
    const read: DraftTrack = {
      file: 'a.flac',
      title: { value: 'Harbour', source: tag },
      isrc: { value: 'GBABC2600001', source: tag },
      album: { title: { value: 'Night Shift', source: tag }, type: { value: 'EP', source: tag } },
    };
    const edited: DraftTrack = {
      file: 'a.flac',
      isrc: read.isrc!,
      album: { title: read.album!.title! },
    };
    expect(clearedFields(read, edited)).toEqual(['title', 'albums[0].type']);
    expect(clearedFields(null, edited)).toEqual([]);
    expect(clearedFields(read, read)).toEqual([]);
  });
});

describe('catalogChanges() and catalogSummary()', () => {
  const file = (path: string, md5: string) => ({
    path,
    localPath: `/music/${path}`,
    size: 1,
    md5,
  });
  const track = (path: string, body: Partial<Track>, album: string): PlannedTrack => ({
    path,
    track: body,
    findings: [],
    album: { key: album, label: album },
  });

  it('says per track and per album what is new, changed (which fields), unchanged or left out', () => {
    const ledger = new Map([
      ['ISRC1', entry(delivered)],
      ['ISRC2', entry({ ...delivered, outer_id: 'ISRC2', title: 'Tide' }, 'm2')],
      // Delivered from this folder, no longer in it.
      ['OLD', { ...entry({ ...delivered, outer_id: 'OLD' }), localPath: '/music/Gone/x.flac' }],
      // Delivered from another folder: not this delivery's business.
      ['ELSE', { ...entry({ ...delivered, outer_id: 'ELSE' }), localPath: '/elsewhere/y.flac' }],
    ]);
    const changes = catalogChanges({
      mode: 'json',
      files: [
        file('Night Shift/01.flac', 'm1'),
        file('Night Shift/02.flac', 'm2'),
        file('Dawn/01.flac', 'm3'),
      ],
      tracks: [
        track('Night Shift/01.flac', { ...delivered, title: 'Harbour (Edit)' }, 'Night Shift'),
        track(
          'Night Shift/02.flac',
          { ...delivered, outer_id: 'ISRC2', title: 'Tide' },
          'Night Shift',
        ),
        track('Dawn/01.flac', { outer_id: 'NEW1', primary_media: 'Dawn/01.flac' }, 'Dawn'),
      ],
      get: (id) => ledger.get(id),
    });
    expect(changes.list.map((t) => [t.outer_id, t.state, t.fields])).toEqual([
      ['ISRC1', 'metadata', ['title']],
      ['ISRC2', 'unchanged', []],
      ['NEW1', 'new', []],
    ]);
    expect(changes.metadataOnly.map((m) => m.track.primary_media)).toEqual(['20261101-a/01.flac']);
    const summary = catalogSummary({
      changes,
      leftOut: [{ path: 'Dawn/02.flac', outer_id: 'X2', album: 'Dawn', state: 'excluded' }],
      entries: ledger.values(),
      under: '/music',
      present: {
        paths: new Set([
          '/music/Night Shift/01.flac',
          '/music/Night Shift/02.flac',
          '/music/Dawn/01.flac',
          '/music/Dawn/02.flac',
        ]),
        ids: new Set(['ISRC1', 'ISRC2', 'NEW1', 'X2']),
      },
    });
    expect(summary.counts).toEqual({
      new: 1,
      audio: 0,
      metadata: 1,
      unchanged: 1,
      excluded: 1,
      skipped: 0,
    });
    expect(summary.albums).toEqual([
      {
        album: 'Night Shift',
        new: 0,
        audio: 0,
        metadata: 1,
        unchanged: 1,
        excluded: 0,
        skipped: 0,
      },
      { album: 'Dawn', new: 1, audio: 0, metadata: 0, unchanged: 0, excluded: 1, skipped: 0 },
    ]);
    expect(summary.gone.map((g) => g.outer_id)).toEqual(['OLD']);
    expect(summary.removals).toEqual([]);
  });

  it('lists a removal with what the catalog holds, and sends everything again with all', () => {
    const ledger = new Map([['ISRC1', entry(delivered)]]);
    const planned = {
      ...track('Night Shift/01.flac', { ...delivered }, 'Night Shift'),
      cleared: ['customer_tags'],
    };
    delete (planned.track as Partial<Track>).customer_tags;
    const args = {
      mode: 'json' as const,
      files: [file('Night Shift/01.flac', 'm1')],
      tracks: [planned],
      get: (id: string) => ledger.get(id),
    };
    const changes = catalogChanges(args);
    expect(changes.list[0]).toMatchObject({
      state: 'metadata',
      removed: ['customer_tags'],
      was: { customer_tags: '[{"category":"Mood","tag":"Calm"}]' },
    });
    const summary = catalogSummary({
      changes,
      leftOut: [],
      entries: [],
      under: '/music',
      present: { paths: new Set(), ids: new Set() },
    });
    expect(summary.removals).toMatchObject([{ outer_id: 'ISRC1', fields: ['customer_tags'] }]);

    // Unchanged tracks go again with all (their audio too), still counted as unchanged.
    const same = catalogChanges({
      ...args,
      tracks: [track('Night Shift/01.flac', { ...delivered }, 'Night Shift')],
      all: true,
    });
    expect(same.counts.unchanged).toBe(1);
    expect(same.tracks).toHaveLength(1);
    expect(same.metadataOnly).toEqual([]);
  });
});
