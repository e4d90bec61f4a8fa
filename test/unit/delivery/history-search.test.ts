import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  deliveredTrack,
  deliveredTracks,
} from '../../../src-main/core/delivery/delivered-tracks.js';
import {
  type DeliveryRecord,
  DeliveryStore,
} from '../../../src-main/core/delivery/delivery-record.js';
import { searchHistory } from '../../../src-main/core/delivery/history-search.js';
import { planDelivery, type PlanInput } from '../../../src-main/core/delivery/plan.js';
import { UsageError } from '../../../src-main/core/errors.js';
import type { Track } from '../../../src-main/core/model/track.js';

const titles: Record<number, string> = {
  3: 'Straße der Sterne',
  4: 'Cafe\u0301 Noir', // decomposed é, as macOS file names carry it
  5: 'ＴＩＤＥＳ', // full-width letters
};

/** A planned delivery of `count` json tracks (ISRC GBABC26000NN, outer_id T<n>), saved. */
function jsonDelivery(at: string, count: number, first = 1): DeliveryRecord {
  const tracks = Array.from({ length: count }, (_, i) => first + i);
  const plan = planDelivery({
    ...base(at, 'json'),
    files: tracks.map((n) => ({ path: `${n}.mp3`, localPath: `/m/${n}.mp3`, size: 10 })),
    tracks: tracks.map((n) => ({
      path: `${n}.mp3`,
      track: {
        outer_id: `T${n}`,
        primary_media: `${n}.mp3`,
        title: titles[n] ?? `Track ${n}`,
        isrc: `GBABC26${String(n).padStart(5, '0')}`,
        artists: [{ id: 'mq', name: 'Mara Quinn', role: 'Main' }],
      },
      findings: [],
    })),
  });
  expect(plan.blocked).toBe(false);
  return plan.record;
}

function base(at: string, mode: PlanInput['mode']): PlanInput {
  return {
    profile: { name: 'Label', environment: 'development' },
    bucket: 'b',
    catalogId: 'cat-1',
    mode,
    dir: `/m/${mode}`,
    files: [],
    now: new Date(at),
  };
}

describe('searchHistory', () => {
  let home: string;
  let store: DeliveryStore;
  let json: DeliveryRecord;
  let mapped: DeliveryRecord;
  let audioOnly: DeliveryRecord;
  let later: DeliveryRecord;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-history-search-'));
    store = new DeliveryStore(home);
    json = jsonDelivery('2026-03-01T10:00:00Z', 30);
    json.batches[0]!.state = 'accepted';
    json.batches[1]!.state = 'failed';
    mapped = planDelivery({
      ...base('2026-03-02T10:00:00Z', 'audio_mapping'),
      files: ['MAP-001_First Light.wav', 'MAP-002_Second Wind.wav'].map((path) => ({
        path,
        localPath: `/m/${path}`,
        size: 10,
      })),
      mapping: { separator: '_', columns: ['outer_id', 'title'] },
    }).record;
    audioOnly = planDelivery({
      ...base('2026-03-03T10:00:00Z', 'audio_only'),
      files: [{ path: 'Live/Encore Take 2.flac', localPath: '/m/x.flac', size: 10 }],
    }).record;
    // The same ISRC delivered again later: both deliveries match, newest first.
    later = jsonDelivery('2026-03-04T10:00:00Z', 1, 12);
    for (const record of [json, mapped, audioOnly, later]) await store.save(record);
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const search = (query: string, options = {}) =>
    searchHistory(store.records({ newestFirst: true }), query, options);

  it('finds a track by ISRC in any case, with hyphens or spaces, with its body as sent', async () => {
    const result = await search(' gb-abc-26 00012 ');
    expect(result.deliveries.map((d) => d.id)).toEqual([later.id, json.id]);
    const [track] = result.deliveries[1]!.tracks;
    expect(track).toMatchObject({
      outer_id: 'T12',
      title: 'Track 12',
      isrc: 'GBABC2600012',
      file: '12.mp3',
      request_index: 0,
      request_state: 'accepted',
      matched: ['isrc'],
    });
    expect(track!.body).toEqual(json.tracks![0]!.find((t: Track) => t.outer_id === 'T12'));
    expect(result).toMatchObject({ tracks: 2, truncated: false });
  });

  it('tells which request carried the track and how that request ended', async () => {
    const { deliveries } = await search('T27');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.tracks).toMatchObject([
      { outer_id: 'T27', request_index: 1, request_state: 'failed', matched: ['outer_id'] },
    ]);
  });

  it('matches an outer_id exactly: not in another case, not as a prefix', async () => {
    expect((await search('T2')).deliveries[0]!.tracks.map((t) => t.outer_id)).toEqual(['T2']);
    expect((await search('t2')).deliveries).toEqual([]);
  });

  it('finds words of a title whatever their case and Unicode form', async () => {
    const outerIds = async (query: string) =>
      (await search(query)).deliveries.flatMap((d) => d.tracks.map((t) => t.outer_id));
    expect(await outerIds('STRASSE')).toEqual(['T3']);
    expect(await outerIds('café')).toEqual(['T4']); // composed é finds the decomposed one
    expect(await outerIds('tides')).toEqual(['T5']);
    expect(await outerIds('Ｓｔｅｒｎｅ')).toEqual(['T3']);
    expect(await outerIds('cafe')).toEqual([]); // accents still count
  });

  it('finds the tracks of folder calls by the name the service gives them, without bodies', async () => {
    const byId = await search('MAP-002');
    expect(byId.deliveries.map((d) => [d.id, d.mode])).toEqual([[mapped.id, 'audio_mapping']]);
    expect(byId.deliveries[0]!.tracks).toEqual([
      {
        outer_id: 'MAP-002',
        title: 'Second Wind',
        file: 'MAP-002_Second Wind.wav',
        request_index: 0,
        request_state: 'pending',
        matched: ['outer_id', 'file'],
      },
    ]);
    expect((await search('first light')).deliveries[0]!.tracks[0]!.matched).toEqual([
      'title',
      'file',
    ]);
    const byName = await search('encore take');
    expect(byName.deliveries[0]!.tracks).toMatchObject([
      { outer_id: 'Encore Take 2.flac', file: 'Live/Encore Take 2.flac', matched: ['file'] },
    ]);
    expect(byName.deliveries[0]!.tracks[0]!.body).toBeUndefined();
    // The folder on disk is not the file's name.
    expect((await search('Live')).deliveries).toEqual([]);
  });

  it('stops at the limit and says more matched; leaves bodies out when asked', async () => {
    const result = await search('track', { limit: 5, bodies: false });
    expect(result.tracks).toBe(5);
    expect(result.truncated).toBe(true);
    expect(result.deliveries.flatMap((d) => d.tracks).every((t) => t.body === undefined)).toBe(
      true,
    );
    const all = await search('track');
    expect(all.tracks).toBe(1 + 27); // later's T12, and json's tracks titled "Track N"
    expect(all.truncated).toBe(false);
  });

  it('reads no further record once the limit is reached', async () => {
    const read: string[] = [];
    async function* history() {
      for (const record of [later, json, mapped, audioOnly]) {
        read.push(record.id);
        yield record;
      }
    }
    const result = await searchHistory(history(), 'GBABC2600012', { limit: 1 });
    expect(result).toMatchObject({ tracks: 1, truncated: true });
    expect(read).toEqual([later.id, json.id]);
  });

  it('refuses an empty query', async () => {
    await expect(search('  ')).rejects.toBeInstanceOf(UsageError);
  });

  it('names the catalog as the profile does', async () => {
    const result = await search('T1', { catalogName: () => 'Main Catalog' });
    expect(result.deliveries[0]!.catalog_name).toBe('Main Catalog');
  });
});

describe('deliveredTrack', () => {
  it('gives one track with its body as sent, or not_found', () => {
    const record = jsonDelivery('2026-03-01T10:00:00Z', 3);
    expect(deliveredTrack(record, 'T2').body).toEqual(record.tracks![0]![1]);
    expect(() => deliveredTrack(record, 'T9')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(deliveredTracks(record, { bodies: false }).map((t) => 'body' in t)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
