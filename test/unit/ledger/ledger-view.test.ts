import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DeliveryStore } from '../../../src-main/core/delivery/delivery-record.js';
import { planDelivery } from '../../../src-main/core/delivery/plan.js';
import {
  CatalogLedger,
  type LedgerEntry,
  ledgerFile,
} from '../../../src-main/core/ledger/catalog-ledger.js';
import { catalogLedgerView, ledgerCsv } from '../../../src-main/core/ledger/ledger-view.js';
import { parseCsvText } from '../../../src-main/core/model/csv-text.js';
import { ProfileStore } from '../../../src-main/core/profiles/profile-store.js';
import { MemorySecretStore } from '../../../src-main/core/secrets/secret-store.js';

const jsonEntry = (outerId: string, title: string, delivery = 'd1'): LedgerEntry => ({
  outer_id: outerId,
  mode: 'json',
  path: `Album/${outerId}.mp3`,
  localPath: `/masters/Album/${outerId}.mp3`,
  size: 1234,
  mtimeMs: 1,
  md5: 'a'.repeat(32),
  primary_media: `20260301-album/Album/${outerId}.mp3`,
  body: {
    outer_id: outerId,
    primary_media: `20260301-album/Album/${outerId}.mp3`,
    title,
    isrc: 'GBABC2600001',
    artists: [
      { id: 'mq', name: 'Mara Quinn', role: 'Main' },
      { id: 'jr', name: 'Joe Ray', role: 'Composer' },
    ],
  },
  delivery,
  at: '2026-03-01T10:00:00.000Z',
});

describe('the ledger view of a catalog', () => {
  let home: string;
  let services: { dataDir: string; profiles: ProfileStore };

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ledger-view-'));
    const profiles = new ProfileStore(home, new MemorySecretStore(), {});
    await profiles.save({
      name: 'Label',
      environment: 'development',
      base_url: 'https://api.example.com',
      client_id: 'c',
      bucket: { bucket_name: 'bucket', bucket_region: 'eu-west-1', access_key_id: 'AKIA' },
      catalogs: [
        { id: 'cat-1', name: 'Main Catalog' },
        { id: '../../escape', name: 'Odd Id' },
      ],
    });
    services = { dataDir: home, profiles };
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('lists what the catalog holds, named by id or by name in any case', async () => {
    const ledger = await CatalogLedger.open(home, 'Label', 'cat-1');
    await ledger.record([jsonEntry('A', 'One'), jsonEntry('B', 'Two')]);
    await ledger.record([jsonEntry('A', 'One (fixed)', 'd2')]);
    const view = await catalogLedgerView(services, 'Label', 'main catalog');
    expect(view).toMatchObject({ profile: 'Label', catalog_id: 'cat-1', total: 2 });
    expect(view.catalog_name).toBe('Main Catalog');
    expect(view.entries).toEqual([
      {
        outer_id: 'B',
        title: 'Two',
        isrc: 'GBABC2600001',
        artists: 'Mara Quinn; Joe Ray (Composer)',
        mode: 'json',
        audio: '20260301-album/Album/B.mp3',
        file: 'Album/B.mp3',
        local_path: '/masters/Album/B.mp3',
        md5: 'a'.repeat(32),
        size: 1234,
        delivery: 'd1',
        delivered_at: '2026-03-01T10:00:00.000Z',
      },
      expect.objectContaining({ outer_id: 'A', title: 'One (fixed)', delivery: 'd2' }),
    ]);
    expect(
      (await catalogLedgerView(services, 'Label', 'cat-1', { limit: 1 })).entries,
    ).toHaveLength(1);
  });

  it('says which profile or catalog does not exist', async () => {
    await expect(catalogLedgerView(services, 'Nope', 'cat-1')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('No profile named "Nope"'),
    });
    await expect(catalogLedgerView(services, 'Label', 'Side Catalog')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('cat-1 (Main Catalog)'),
    });
  });

  it('gives audio_mapping tracks the title and ISRC their file names carried', async () => {
    const { record } = planDelivery({
      profile: { name: 'Label', environment: 'development' },
      bucket: 'bucket',
      catalogId: 'cat-1',
      mode: 'audio_mapping',
      dir: '/m/Mapped',
      files: [{ path: 'MAP-1_GBABC2600009_Night Bus.wav', localPath: '/m/x.wav', size: 5 }],
      mapping: { separator: '_', columns: ['outer_id', 'isrc', 'title'] },
      now: new Date('2026-03-02T00:00:00Z'),
    });
    await new DeliveryStore(home).save(record);
    const ledger = await CatalogLedger.open(home, 'Label', 'cat-1');
    await ledger.record([
      {
        outer_id: 'MAP-1',
        mode: 'audio_mapping',
        path: 'MAP-1_GBABC2600009_Night Bus.wav',
        primary_media: `${record.folder}/MAP-1_GBABC2600009_Night Bus.wav`,
        delivery: record.id,
        at: '2026-03-02T00:00:01.000Z',
      },
    ]);
    const [row] = (await catalogLedgerView(services, 'Label', 'cat-1')).entries;
    expect(row).toMatchObject({
      outer_id: 'MAP-1',
      title: 'Night Bus',
      isrc: 'GBABC2600009',
      mode: 'audio_mapping',
      artists: '',
    });
  });

  it('exports CSV with the header first, formula-safe, that reads back cell for cell', async () => {
    const ledger = await CatalogLedger.open(home, 'Label', 'cat-1');
    await ledger.record([jsonEntry('=1+2', '@SUM(A1), "quoted"\nsecond line')]);
    const { entries } = await catalogLedgerView(services, 'Label', 'cat-1');
    const csv = ledgerCsv(entries);
    expect(csv.startsWith('outer_id,title,isrc,artists,mode,audio,file,local_path,md5,size,')).toBe(
      true,
    );
    expect(csv).toContain("'=1+2");
    const [header, row] = parseCsvText(csv);
    expect(header).toHaveLength(12);
    expect(row!.slice(0, 3)).toEqual(['=1+2', '@SUM(A1), "quoted"\nsecond line', 'GBABC2600001']);
  });

  it("keeps a ledger inside <dataDir>/ledger whatever the profile's and catalog's names", async () => {
    for (const [profile, catalog] of [
      ['..', '..'],
      ['../..', '../../etc/passwd'],
      ['Label', '..\\..\\evil'],
      ['%2e%2e%2f', '%2F..%2F'],
      ['.', '/absolute'],
    ]) {
      expect(dirname(ledgerFile(home, profile!, catalog!))).toBe(join(home, 'ledger'));
    }
    // The profile's catalog id "../../escape" is a file name inside ledger/, not a path.
    await writeFile(
      join(home, 'escape.jsonl'),
      `${JSON.stringify(jsonEntry('PLANTED', 'not ours'))}\n`,
    );
    const ledger = await CatalogLedger.open(home, 'Label', '../../escape');
    await ledger.record([jsonEntry('OURS', 'ours')]);
    expect(await readdir(join(home, 'ledger'))).toEqual([
      expect.stringMatching(/^Label~\.\.%2F\.\.%2Fescape\.jsonl$/),
    ]);
    const view = await catalogLedgerView(services, 'Label', 'Odd Id');
    expect(view.entries.map((e) => e.outer_id)).toEqual(['OURS']);
  });

  it('keeps the ledger of names too long for a file name, each apart', async () => {
    const profile = '東京レコード'.repeat(10); // 60 letters, 540 characters encoded
    const [one, two] = ['カタログ'.repeat(30), `${'カタログ'.repeat(30)}2`];
    await (await CatalogLedger.open(home, profile, one)).record([jsonEntry('A', 'One')]);
    await (await CatalogLedger.open(home, profile, two)).record([jsonEntry('B', 'Two')]);
    expect((await CatalogLedger.open(home, profile, one)).entries().map((e) => e.outer_id)).toEqual(
      ['A'],
    );
    expect((await CatalogLedger.open(home, profile, two)).entries().map((e) => e.outer_id)).toEqual(
      ['B'],
    );
    for (const name of await readdir(join(home, 'ledger'))) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    }
  });
});
