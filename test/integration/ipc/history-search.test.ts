/**
 * History's search, a track's body as sent and the catalog ledger over the contract, as the
 * renderer calls them: answers from recorded deliveries on disk, and every request checked (a
 * hostile renderer can't make a profile or catalog name reach a file outside the ledger).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DeliveryStore } from '../../../src-main/core/delivery/delivery-record.js';
import { planDelivery } from '../../../src-main/core/delivery/plan.js';
import { ledgerEntries } from '../../../src-main/core/delivery/run-delivery.js';
import { CatalogLedger } from '../../../src-main/core/ledger/catalog-ledger.js';
import { parseCsvText } from '../../../src-main/core/model/csv-text.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';
import { type CoreServices, createServices } from '../../../src-main/core/services.js';
import type { Envelope, ResultOf } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';

describe('history search and catalog ledger operations over the contract', () => {
  let home: string;
  let services: CoreServices;
  let router: Router;
  let id: string;

  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const result = (await router.dispatch(channel, request)) as Envelope<T>;
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };
  const failure = async (channel: string, request: unknown) => {
    const result = await router.dispatch(channel, request);
    expect(result.ok, JSON.stringify(result)).toBe(false);
    return (result as { error: { code: string; message: string } }).error;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ipc-history-'));
    services = createServices({ COURIER_HOME: home }, { secrets: new MemorySecretStore() });
    router = createRouter({ kind: 'web', locate: async () => [] }, services);
    await services.profiles.save({
      name: 'Label',
      environment: 'development',
      base_url: 'https://api.example.com',
      client_id: 'client',
      bucket: { bucket_name: 'bucket', bucket_region: 'eu-west-1', access_key_id: 'AKIA' },
      catalogs: [
        { id: 'cat-1', name: 'Main Catalog' },
        // Catalog ids are the service's; a profile may hold any text there.
        { id: '../../secret', name: 'Odd' },
      ],
    });
    const { record } = planDelivery({
      profile: { name: 'Label', environment: 'development' },
      bucket: 'bucket',
      catalogId: 'cat-1',
      mode: 'json',
      dir: '/masters/Low Tide',
      files: [1, 2].map((n) => ({ path: `0${n}.mp3`, localPath: `/m/0${n}.mp3`, size: 10 })),
      tracks: [1, 2].map((n) => ({
        path: `0${n}.mp3`,
        track: {
          outer_id: `LT-${n}`,
          primary_media: `0${n}.mp3`,
          title: n === 1 ? 'Opening' : 'Drift',
          isrc: `GBAYE210010${n}`,
        },
        findings: [],
      })),
    });
    record.batches[0]!.state = 'accepted';
    record.batches[0]!.answeredAt = '2026-03-01T10:00:00.000Z';
    record.state = 'accepted';
    await new DeliveryStore(home).save(record);
    const ledger = await CatalogLedger.open(home, 'Label', 'cat-1');
    await ledger.record(ledgerEntries(record, record.batches[0]!));
    id = record.id;
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('searches by ISRC, then gives the body of the track the user opens', async () => {
    const found = await call<ResultOf<'searchDeliveries'>>('deliveries:search', {
      query: 'gb-aye-21-00102',
    });
    expect(found.deliveries).toMatchObject([
      {
        id,
        catalog_name: 'Main Catalog',
        tracks: [
          { outer_id: 'LT-2', title: 'Drift', request_state: 'accepted', matched: ['isrc'] },
        ],
      },
    ]);
    expect(found.deliveries[0]!.tracks[0]!.body).toBeUndefined();
    const { track } = await call<ResultOf<'deliveredTrack'>>('deliveries:track', {
      id,
      outer_id: 'LT-2',
    });
    expect(track.body).toEqual({
      outer_id: 'LT-2',
      primary_media: expect.stringMatching(/\/02\.mp3$/),
      title: 'Drift',
      isrc: 'GBAYE2100102',
    });
    expect(await failure('deliveries:track', { id, outer_id: 'LT-9' })).toMatchObject({
      code: 'not_found',
    });
  });

  it('shows what the catalog holds and exports it as CSV', async () => {
    const view = await call<ResultOf<'catalogLedger'>>('ledger:view', {
      profile: 'Label',
      catalogId: 'cat-1',
    });
    expect(view).toMatchObject({ catalog_name: 'Main Catalog', total: 2 });
    expect(view.entries.map((e) => [e.outer_id, e.title, e.delivery])).toEqual([
      ['LT-1', 'Opening', id],
      ['LT-2', 'Drift', id],
    ]);
    const exported = await call<ResultOf<'exportLedgerCsv'>>('ledger:exportCsv', {
      profile: 'Label',
      catalogId: 'cat-1',
    });
    expect(exported.fileName).toMatch(/^courier-ledger-Label-Main-Catalog-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(exported.rows).toBe(2);
    const [header, ...rows] = parseCsvText(exported.csv);
    expect(header![0]).toBe('outer_id');
    expect(rows.map((r) => r[0])).toEqual(['LT-1', 'LT-2']);
  });

  it('refuses requests the schema does not allow', async () => {
    for (const [channel, request] of [
      ['deliveries:search', { query: '' }],
      ['deliveries:search', { query: 'x'.repeat(257) }],
      ['deliveries:search', { query: 'x', limit: 100_000 }],
      ['deliveries:track', { id: '../profiles', outer_id: 'x' }],
      ['deliveries:track', { id }],
      ['ledger:view', { profile: 'Label' }],
      ['ledger:view', { profile: 'Label', catalogId: 'cat-1', file: '/etc/passwd' }],
      ['ledger:exportCsv', { profile: 'Label', catalogId: 'c'.repeat(129) }],
    ] as const) {
      expect(
        await failure(channel, request),
        `${channel} ${JSON.stringify(request)}`,
      ).toMatchObject({
        code: 'invalid_request',
      });
    }
    expect(await failure('deliveries:search', { query: '   ' })).toMatchObject({ code: 'usage' });
  });

  it('never lets a profile or catalog name reach a file outside the ledger', async () => {
    // Where a path joined from the raw names would land: files that must never be read.
    const planted = `${JSON.stringify({ outer_id: 'PLANTED', mode: 'json', delivery: 'x', at: '' })}\n`;
    await mkdir(join(home, 'ledger'), { recursive: true });
    await writeFile(join(home, 'ledger', 'secret.jsonl'), planted); // ledger/Label~../../secret
    await writeFile(join(home, 'secret.jsonl'), planted);
    for (const request of [
      { profile: '../..', catalogId: 'cat-1' },
      { profile: 'Label', catalogId: '../../secret.jsonl' },
      { profile: 'Label', catalogId: '../profiles.json' },
      { profile: 'Label', catalogId: '/etc/passwd' },
    ]) {
      expect(await failure('ledger:view', request), JSON.stringify(request)).toMatchObject({
        code: 'not_found',
      });
    }
    // The profile's own odd catalog id names a file inside ledger/: empty, not the planted one.
    const odd = await call<ResultOf<'catalogLedger'>>('ledger:view', {
      profile: 'Label',
      catalogId: '../../secret',
    });
    expect(odd).toMatchObject({ catalog_name: 'Odd', total: 0, entries: [] });
    expect((await readdir(join(home, 'ledger'))).sort()).toEqual([
      'Label~cat-1.jsonl',
      'secret.jsonl',
    ]);
  });
});
