/**
 * History's search and the catalog ledger through the real UI in Chromium, the browser host and
 * the embedded sandbox (#15): a small album delivered in json mode is opened in History with its
 * request and the service's answer (fetched on demand, #20), found again by an ISRC typed in
 * lower case with hyphens, its body is shown as sent (and as the sandbox stored it), and the
 * Catalog tab lists what the catalog holds and exports it as CSV.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseCsvText } from '../../src-main/core/model/csv-text.js';
import type { Track } from '../../src-main/core/model/track.js';
import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping the history e2e: missing ${missing.join(', ')}`);

const tracks = [
  { name: '01 Opening.mp3', title: 'Opening', isrc: 'GBAYE2100201' },
  { name: '02 Drift.mp3', title: 'Drift', isrc: 'GBAYE2100202' },
];

describe.skipIf(missing.length > 0)('History: search, bodies as sent, the catalog ledger', () => {
  let app: E2eApp;
  let page: Page;

  const shot = async (name: string) =>
    page.screenshot({ path: await artifactPath(`history-${name}.png`) });

  beforeAll(async () => {
    app = await E2eApp.create('courier-history-e2e-');
    const album = join(app.masters, 'Low Tide');
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio('mp3', join(album, t.name), 'id3v2.4', {
        title: t.title,
        artists: ['Mara Quinn'],
        album: 'Low Tide',
        isrc: t.isrc,
        track: `${i + 1}/2`,
        date: '2022-03-04',
      });
    }
    page = await app.open({ viewport: { width: 1400, height: 860 }, acceptDownloads: true });
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(album, tracks.length);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('delivers the album', async () => {
    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('preflight').getByText('Pre-flight — ready').waitFor();
    await page.getByTestId('deliver-now').click();
    const transfer = page.getByTestId('transfer').first();
    await transfer.getByTestId('transfer-state').getByText('done').waitFor({ timeout: 60_000 });
  }, 90_000);

  it('opens the delivery in History and shows its request with the service’s answer', async () => {
    await app.nav('History').click();
    const row = page.getByTestId('history-row').first();
    await row.getByTestId('history-requests').getByText('1/1 accepted').waitFor();
    // The list carries no request: they come when the delivery is opened.
    expect(await page.getByTestId('history-request').count()).toBe(0);
    await row.getByRole('button', { name: 'Details' }).click();
    const request = page.getByTestId('history-detail').getByTestId('history-request');
    await expect
      .poll(() => request.allTextContents())
      .toEqual([
        expect.stringMatching(/request 1: accepted · 2\s+track\(s\) · 1 attempt\(s\) · HTTP 200/),
      ]);
    const answer = await page.getByLabel('Response to request 1').textContent();
    for (const t of tracks) expect(answer).toContain(t.isrc);
    await shot('00-delivery-detail');
    await row.getByRole('button', { name: 'Hide' }).click();
    await page.getByTestId('history-detail').waitFor({ state: 'detached' });
  }, 60_000);

  it('finds the delivery by ISRC in History and shows the body as sent', async () => {
    await app.nav('History').click();
    await page.getByTestId('history-requests').first().getByText('1/1 accepted').waitFor();
    await page.getByRole('searchbox', { name: 'ISRC, outer_id or title' }).fill('gb-aye-21-00202');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const results = page.getByTestId('search-results');
    await results.getByText('1 track in 1 delivery').waitFor();
    const row = results.getByTestId('search-track');
    await expect.poll(() => row.textContent()).toMatch(/1 · accepted.*GBAYE2100202.*Drift.*isrc/);
    // The one track found shows its body at once, exactly as the request carried it.
    const body = JSON.parse(
      (await results.getByTestId('body-as-sent').textContent()) ?? '',
    ) as Track;
    expect(body).toMatchObject({
      outer_id: 'GBAYE2100202',
      isrc: 'GBAYE2100202',
      title: 'Drift',
      artists: [expect.objectContaining({ name: 'Mara Quinn' })],
    });
    const { catalogs } = await app.sandbox();
    const entries = await app.inspect(`/sandbox/catalogs/${catalogs[0]!.id}/entries`);
    const stored = entries.find((e) => e.outer_id === 'GBAYE2100202') as {
      metadata: { title: string; isrc: string };
    };
    expect([stored.metadata.title, stored.metadata.isrc]).toEqual([body.title, body.isrc]);
    await shot('01-search-body');

    // A title in another case finds the other track; its body comes when asked for.
    await page.getByRole('searchbox', { name: 'ISRC, outer_id or title' }).fill('OPENING');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await results.getByTestId('search-track').getByText('Opening').waitFor();
    await expect
      .poll(() => results.getByTestId('body-as-sent').textContent())
      .toContain('"title": "Opening"');
  }, 60_000);

  it('shows what the catalog holds from this workstation and exports it as CSV', async () => {
    await page.getByRole('tab', { name: 'Catalog' }).click();
    const { catalogs } = await app.sandbox();
    const summary = page.getByTestId('ledger-summary');
    await summary.getByText(`${catalogs[0]!.name} holds 2 tracks from this workstation.`).waitFor();
    const rows = page.getByTestId('ledger-row');
    await expect
      .poll(() => rows.allTextContents())
      .toEqual([
        expect.stringMatching(/GBAYE2100201.*Opening.*GBAYE2100201.*Mara Quinn.*json/),
        expect.stringMatching(/GBAYE2100202.*Drift.*GBAYE2100202.*Mara Quinn.*json/),
      ]);
    await shot('02-catalog');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^courier-ledger-Sandbox-.*\.csv$/);
    const [header, ...csvRows] = parseCsvText(await readFile((await file.path())!, 'utf8'));
    expect(header!.slice(0, 4)).toEqual(['outer_id', 'title', 'isrc', 'artists']);
    expect(csvRows.map((r) => r.slice(0, 4))).toEqual([
      ['GBAYE2100201', 'Opening', 'GBAYE2100201', 'Mara Quinn'],
      ['GBAYE2100202', 'Drift', 'GBAYE2100202', 'Mara Quinn'],
    ]);
    await page.getByText('Exported 2 track(s)').waitFor();
  }, 60_000);
});
