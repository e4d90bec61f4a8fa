import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CatalogLedger, type LedgerEntry } from '../../../src-main/core/ledger/catalog-ledger.js';

const entry = (outerId: string, title: string, delivery = 'd1'): LedgerEntry => ({
  outer_id: outerId,
  mode: 'json',
  path: `${outerId}.mp3`,
  size: 10,
  mtimeMs: 1,
  md5: '0'.repeat(32),
  primary_media: `f/${outerId}.mp3`,
  body: { outer_id: outerId, primary_media: `f/${outerId}.mp3`, title },
  delivery,
  at: '2026-11-22T00:00:00.000Z',
});

describe('CatalogLedger', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-ledger-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('keeps the last accepted body of each track across reopenings, per profile and catalog', async () => {
    const ledger = await CatalogLedger.open(home, 'Label', 'cat-1');
    await ledger.record([entry('A', 'One'), entry('B', 'Two')]);
    await ledger.record([entry('A', 'One (fixed)', 'd2')]);
    const again = await CatalogLedger.open(home, 'Label', 'cat-1');
    expect(again.size).toBe(2);
    expect(again.get('A')?.body?.title).toBe('One (fixed)');
    expect(again.get('A')?.delivery).toBe('d2');
    expect((await CatalogLedger.open(home, 'Label', 'cat-2')).size).toBe(0);
    expect((await CatalogLedger.open(home, 'Other', 'cat-1')).size).toBe(0);
  });

  it('ignores a line a crash cut short, and cuts it off before the next append', async () => {
    const ledger = await CatalogLedger.open(home, 'Label', 'cat');
    await ledger.record([entry('A', 'One')]);
    await appendFile(ledger.file, '{"outer_id":"B","mode":"js'); // killed mid-write
    const reopened = await CatalogLedger.open(home, 'Label', 'cat');
    expect(reopened.entries().map((e) => e.outer_id)).toEqual(['A']);
    await reopened.record([entry('C', 'Three')]);
    const lines = (await readFile(ledger.file, 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as LedgerEntry).outer_id)).toEqual(['A', 'C']);
  });

  it('appends only the batch, and rewrites the log once it is mostly superseded lines', async () => {
    const ledger = await CatalogLedger.open(home, 'Label', 'cat');
    await ledger.record(Array.from({ length: 10 }, (_, i) => entry(`T${i}`, 'v0')));
    const before = (await readFile(ledger.file, 'utf8')).length;
    await ledger.record([entry('T0', 'v1')]);
    const after = (await readFile(ledger.file, 'utf8')).length;
    expect(after - before).toBe(`${JSON.stringify(entry('T0', 'v1'))}\n`.length);
    for (let round = 0; round < 120; round++) {
      await ledger.record(Array.from({ length: 10 }, (_, i) => entry(`T${i}`, `v${round}`)));
    }
    const lines = (await readFile(ledger.file, 'utf8')).trimEnd().split('\n').length;
    expect(lines).toBeLessThan(1_100); // compacted: 1,211 lines were written
    const reopened = await CatalogLedger.open(home, 'Label', 'cat');
    expect(reopened.size).toBe(10);
    expect(reopened.get('T9')?.body?.title).toBe('v119');
  });

  it('opened by a run without bodies, keeps every body it records or rewrites for the next plan', async () => {
    const first = await CatalogLedger.open(home, 'Label', 'cat');
    await first.record([entry('OLD', 'kept')]);
    const run = await CatalogLedger.open(home, 'Label', 'cat', { withoutBodies: true });
    expect(run.get('OLD')).toMatchObject({ delivery: 'd1', md5: '0'.repeat(32) });
    expect(run.get('OLD')?.body).toBeUndefined();
    for (let round = 0; round < 120; round++) {
      await run.record(Array.from({ length: 10 }, (_, i) => entry(`T${i}`, `v${round}`, 'd2')));
    }
    expect(run.get('T3')?.body).toBeUndefined();
    const lines = (await readFile(run.file, 'utf8')).trimEnd().split('\n').length;
    expect(lines).toBeLessThan(1_100); // compacted while held without bodies
    const plan = await CatalogLedger.open(home, 'Label', 'cat');
    expect(plan.entries().map((e) => e.outer_id)).toEqual([
      'OLD',
      ...Array.from({ length: 10 }, (_, i) => `T${i}`),
    ]);
    expect(plan.get('OLD')?.body?.title).toBe('kept');
    expect(plan.get('T9')?.body?.title).toBe('v119');
  });

  it('loses no line when two writers append at once (the app and the CLI)', async () => {
    const [one, two] = await Promise.all([
      CatalogLedger.open(home, 'Label', 'cat'),
      CatalogLedger.open(home, 'Label', 'cat'),
    ]);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? one : two).record([entry(`T${i}`, 'x'), entry(`U${i}`, 'y')]),
      ),
    );
    const reopened = await CatalogLedger.open(home, 'Label', 'cat');
    expect(reopened.size).toBe(80);
  });
});
