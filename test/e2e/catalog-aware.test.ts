/**
 * Catalog-aware deliveries in the real UI (#15), in Chromium through the browser host, against
 * the embedded sandbox: skip the tracks with errors, exclude an album, deliver; options start
 * again from the defaults; the Catalog column and its filter after a change; a removed field
 * asked for before it is sent; a selection delivered alone.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping catalog-aware e2e: missing ${missing.join(', ')}`);

const albums = {
  'Salt Flats': [
    { name: '01 Mirage.mp3', title: 'Mirage', isrc: 'GBSLT2600001' },
    { name: '02 Heat.mp3', title: 'Heat', isrc: 'GBSLT2600002' },
    // A malformed ISRC: an error the user chooses to skip at first.
    { name: '03 Dust.mp3', title: 'Dust', isrc: 'GBSLT26000XX' },
  ],
  'Night Bus': [
    { name: '01 Last Stop.mp3', title: 'Last Stop', isrc: 'GBNBS2600001' },
    { name: '02 Depot.mp3', title: 'Depot', isrc: 'GBNBS2600002' },
  ],
};

interface Entry {
  outer_id: string;
  metadata: { title?: string };
}

describe.skipIf(missing.length > 0)('catalog-aware deliveries in the app', () => {
  let app: E2eApp;
  let page: Page;
  let catalog: string | undefined;

  const shot = async (name: string) =>
    page.screenshot({ path: await artifactPath(`catalog-${name}.png`) });
  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const cellText = async (file: string, column: string) =>
    ((await row(file).locator(`[data-column="${column}"]`).textContent()) ?? '').trim();
  const preflight = () => page.getByTestId('preflight');
  const clearFolder = () => page.getByRole('checkbox', { name: /clear the delivery folder/ });
  const entries = async () => {
    // The embedded sandbox starts with the first delivery; the Deliver view chose its first catalog.
    catalog ??= (await app.sandbox()).catalogs[0]!.id;
    return (await app.inspect(`/sandbox/catalogs/${catalog}/entries`)) as unknown as Entry[];
  };
  const ingestions = async () =>
    (await app.inspect('/sandbox/requests')).filter(
      (r) => String(r.path).startsWith('/ingestion/') && Number(r.status) < 300,
    );

  async function editCell(file: string, column: string, text: string) {
    await row(file).locator(`[data-column="${column}"]`).click();
    await page.keyboard.press('F2');
    await page.keyboard.press('ControlOrMeta+A');
    if (text) await page.keyboard.type(text);
    else await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await expect.poll(() => cellText(file, column)).toBe(text);
  }

  async function check(state: RegExp) {
    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight()
      .getByText(state)
      .waitFor({ timeout: 30_000 })
      .catch(async (e) => {
        console.log('DEBUG', await page.locator('main').innerText());
        throw e;
      });
  }

  async function deliverAndWait() {
    const before = await page.getByTestId('transfer').count();
    await page.getByTestId('deliver-now').click();
    await expect.poll(() => page.getByTestId('transfer').count()).toBeGreaterThan(before);
    await page
      .getByTestId('transfer')
      .first()
      .getByTestId('transfer-state')
      .getByText('done')
      .waitFor({ timeout: 60_000 });
  }

  beforeAll(async () => {
    app = await E2eApp.create('courier-catalog-e2e-');
    for (const [album, tracks] of Object.entries(albums)) {
      const dir = join(app.masters, 'Masters', album);
      await mkdir(dir, { recursive: true });
      for (const [i, t] of tracks.entries()) {
        await makeTaggedAudio('mp3', join(dir, t.name), 'id3v2.4', {
          title: t.title,
          artists: ['Ines Vale'],
          album,
          isrc: t.isrc,
          track: `${i + 1}/${tracks.length}`,
          date: '2024-05-06',
        });
      }
    }
    page = await app.open({ viewport: { width: 1500, height: 900 } });
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(join(app.masters, 'Masters'), 5);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('skips the track with errors, leaves an excluded album out, and delivers the rest', async () => {
    await check(/Pre-flight — blocked/);
    await page.getByLabel('Skip tracks with errors').check();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight().getByText('Pre-flight — ready').waitFor();
    await expect(page.getByTestId('standing-counts').textContent()).resolves.toMatch(
      /4 new, 1 skipped \(errors\)/,
    );

    // Exclude the whole of Night Bus from its album header.
    await app.nav('Library').click();
    await page.getByRole('checkbox', { name: 'Group by album' }).check();
    await page
      .getByRole('row', { name: /^Album Night Bus/ })
      .locator('[data-column="title"]')
      .click();
    await page.getByRole('button', { name: 'Exclude', exact: true }).click();
    await page.getByTestId('library-summary').getByText('2 excluded').waitFor();
    await expect.poll(() => cellText('Night Bus/02 Depot.mp3', 'catalog')).toBe('Excluded');

    // A choice that must not carry over to the next delivery.
    await app.nav('Deliver').click();
    await clearFolder().uncheck();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight().getByText('Pre-flight — ready').waitFor();
    const facts = (await page.getByTestId('preflight-facts').textContent()) ?? '';
    expect(facts).toContain('Sandbox');
    expect(facts).toContain('delete_delivered_file=false');
    expect(facts).toMatch(/Mode\s*json/);
    await expect(page.getByTestId('standing-counts').textContent()).resolves.toMatch(
      /2 new, 2 excluded, 1 skipped \(errors\)/,
    );
    await expect(page.getByTestId('standing-albums').textContent()).resolves.toContain('Night Bus');
    await page.getByTestId('sample-body').locator('summary').click();
    await expect(page.getByTestId('sample-body').textContent()).resolves.toContain(
      '"outer_id": "GBSLT2600001"',
    );
    await shot('01-preflight');
    await deliverAndWait();

    expect((await entries()).map((e) => e.outer_id).sort()).toEqual([
      'GBSLT2600001',
      'GBSLT2600002',
    ]);
    await app.nav('Deliver').click();
    await expect(clearFolder().isChecked()).resolves.toBe(true);
  }, 120_000);

  it('shows each track against the catalog after a change, with a filter', async () => {
    await app.nav('Library').click();
    await page
      .getByRole('row', { name: /^Album Night Bus/ })
      .locator('[data-column="title"]')
      .click();
    await page.getByRole('button', { name: 'Include', exact: true }).click();
    await editCell('Salt Flats/03 Dust.mp3', 'isrc', 'GBSLT2600003');
    await editCell('Salt Flats/03 Dust.mp3', 'outer_id', 'DUST-003');
    await editCell('Salt Flats/02 Heat.mp3', 'title', 'Heat (Remastered)');

    await check(/Pre-flight — ready/);
    await expect(page.getByTestId('standing-counts').textContent()).resolves.toMatch(
      /3 new, 1 changed metadata, 1 unchanged/,
    );
    await app.nav('Library').click();
    await expect.poll(() => cellText('Salt Flats/02 Heat.mp3', 'catalog')).toBe('Changed: title');
    await expect
      .poll(() => cellText('Salt Flats/01 Mirage.mp3', 'catalog'))
      .toMatch(/^Delivered \d{4}-\d{2}-\d{2}$/);
    await expect.poll(() => cellText('Night Bus/01 Last Stop.mp3', 'catalog')).toBe('New');
    await page.getByRole('combobox', { name: 'Catalog standing' }).selectOption('changed');
    await expect.poll(() => page.locator('[role="row"][data-row-id]').count()).toBe(1);
    await shot('02-library-changed');
    await page.getByRole('combobox', { name: 'Catalog standing' }).selectOption('');

    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight().getByText('Pre-flight — ready').waitFor();
    await deliverAndWait();
    const heat = (await entries()).find((e) => e.outer_id === 'GBSLT2600002');
    expect(heat?.metadata.title).toBe('Heat (Remastered)');
    expect((await entries()).length).toBe(5);
  }, 120_000);

  it('asks before a field the catalog holds is removed, and says when nothing changed', async () => {
    await check(/Pre-flight — nothing to send/);
    await expect(page.getByTestId('nothing-changed').textContent()).resolves.toMatch(
      /nothing changed since delivery/,
    );
    await expect(page.getByTestId('deliver-now').isDisabled()).resolves.toBe(true);

    await app.nav('Library').click();
    await editCell('Night Bus/02 Depot.mp3', 'title', '');
    await check(/Pre-flight — ready/);
    const removals = page.getByTestId('removals');
    await expect(removals.textContent()).resolves.toMatch(/GBNBS2600002\s*title\s*"Depot"/);
    await expect(page.getByTestId('deliver-now').isDisabled()).resolves.toBe(true);
    await shot('03-removals');
    await removals.getByRole('checkbox', { name: /Remove these fields/ }).check();
    await deliverAndWait();
    const depot = (await entries()).find((e) => e.outer_id === 'GBNBS2600002');
    expect(depot?.metadata.title).toBeUndefined();
  }, 120_000);

  it('delivers only the selected track', async () => {
    await app.nav('Library').click();
    await editCell('Salt Flats/01 Mirage.mp3', 'title', 'Mirage (Edit)');
    await editCell('Night Bus/01 Last Stop.mp3', 'title', 'Last Stop (Live)');
    await row('Salt Flats/01 Mirage.mp3').locator('[data-column="title"]').click();
    const sentBefore = (await ingestions()).length;

    await app.nav('Deliver').click();
    await page.getByRole('radio', { name: /Only the 1 track/ }).check();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight().getByText('Pre-flight — ready').waitFor();
    await expect(page.getByTestId('standing-counts').textContent()).resolves.toMatch(
      /1 changed metadata, 4 excluded/,
    );
    await deliverAndWait();
    const sent = (await ingestions()).slice(sentBefore);
    expect(sent.map((r) => r.tracks)).toEqual([1]);
    const byId = new Map((await entries()).map((e) => [e.outer_id, e.metadata.title]));
    expect(byId.get('GBSLT2600001')).toBe('Mirage (Edit)');
    expect(byId.get('GBNBS2600001')).toBe('Last Stop');
  }, 120_000);
});
