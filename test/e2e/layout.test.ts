/**
 * The Library at 1280×720, through the real UI in Chromium via the browser host: with the
 * inspector collapsed (a toggle that says whether it is expanded, remembered after a reload) the
 * main columns fit without scrolling sideways, codes and dates show whole, and the File column
 * leads with the file's name rather than the folder every track repeats. Screenshots of both
 * states go to test/artifacts/layout-1280x720-*.png.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`layout e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the layout e2e test: missing ${missing.join(', ')}`);
}

// A folder name as long as labels write them: repeated on every track, it must not hide names.
const folder = 'Harbour Lights (Deluxe Edition, 2024 Remaster) [FLAC 24-96]';
const tracks = [
  { name: '01 Opening.mp3', title: 'Opening', isrc: 'GBWWW2400101' },
  { name: '02 Drift.mp3', title: 'Drift', isrc: 'GBWWW2400102' },
  { name: '03 Tides.mp3', title: 'Tides', isrc: 'GBWWW2400103' },
];
const mainColumns = ['file', 'track', 'title', 'artists', 'album', 'isrc', 'upc'];

describe.skipIf(missing.length > 0)('the Library at 1280×720', () => {
  let app: E2eApp;
  let page: Page;

  const firstRow = (): Locator => page.locator('[role="row"][data-row-id]').first();
  const toggle = (): Locator => page.getByRole('button', { name: 'Inspector' });
  /** Whether an element's text is cut (it holds more than its box shows). */
  const cut = (element: Locator) => element.evaluate((el) => el.scrollWidth > el.clientWidth);

  beforeAll(async () => {
    app = await E2eApp.create('courier-layout-e2e-');
    const album = join(app.masters, folder);
    await mkdir(album, { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio('mp3', join(album, t.name), 'id3v2.4', {
        title: t.title,
        artists: ['Mara Quinn'],
        album: 'Harbour Lights',
        isrc: t.isrc,
        // The widest digits in a row (and a valid check digit): 13 of them must show whole.
        barcode: '0888888888886',
        track: `${i + 1}/3`,
        date: '2024-08-28',
      });
    }
    page = await app.open({ viewport: { width: 1280, height: 720 } });
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(album, tracks.length);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('collapses the inspector with a toggle that says whether it is expanded', async () => {
    await firstRow().locator('[data-column="title"]').click();
    await page.getByTestId('inspector').waitFor();
    await expect(toggle().getAttribute('aria-expanded')).resolves.toBe('true');
    await page.screenshot({ path: await artifactPath('layout-1280x720-inspector.png') });
    await toggle().click();
    await page.getByTestId('inspector').waitFor({ state: 'detached' });
    await expect(toggle().getAttribute('aria-expanded')).resolves.toBe('false');
  });

  it('shows the main columns without scrolling sideways, codes and dates whole', async () => {
    const grid = page.getByTestId('track-grid');
    const gridBox = (await grid.boundingBox())!;
    const missed: string[] = [];
    for (const column of mainColumns) {
      const box = (await firstRow().locator(`[data-column="${column}"]`).boundingBox())!;
      if (box.x + box.width > gridBox.x + gridBox.width) missed.push(column);
    }
    expect(missed, 'columns beyond the grid’s right edge').toEqual([]);
    expect(await grid.evaluate((el) => el.scrollLeft)).toBe(0);
    const headers = page.getByRole('columnheader').getByRole('button');
    const cutHeaders: string[] = [];
    for (const header of await headers.all()) {
      if (await cut(header)) cutHeaders.push((await header.textContent())!.trim());
    }
    expect(cutHeaders, 'column headers cut short').toEqual([]);
    for (const column of ['upc', 'isrc', 'release_date']) {
      expect(await cut(firstRow().locator(`[data-column="${column}"]`)), column).toBe(false);
    }
    await expect(firstRow().locator('[data-column="upc"]').textContent()).resolves.toBe(
      '0888888888886',
    );
    await page.screenshot({ path: await artifactPath('layout-1280x720.png') });
  });

  it('leads the File column with the file’s name, the folder after it and in the tooltip', async () => {
    const file = firstRow().locator('[data-column="file"]');
    const name = file.getByText('01 Opening.mp3', { exact: true });
    expect(await cut(name)).toBe(false);
    const cellBox = (await file.boundingBox())!;
    const nameBox = (await name.boundingBox())!;
    expect(nameBox.x - cellBox.x).toBeLessThan(12);
    await expect(file.locator('[title]').getAttribute('title')).resolves.toBe(
      `${folder}/01 Opening.mp3`,
    );
    // Copying, filtering and screen readers still get the whole path.
    await expect(file.textContent()).resolves.toBe(`${folder}/01 Opening.mp3`);
  });

  it('remembers the collapsed inspector after a reload, and opens it again', async () => {
    await page.reload();
    await page.getByTestId('connection').getByText('Browser host').waitFor();
    // The library is not kept across this reload: the tracks are added again.
    await app.addFolder(join(app.masters, folder), tracks.length);
    await expect(toggle().getAttribute('aria-expanded')).resolves.toBe('false');
    await toggle().click();
    await page.getByTestId('inspector').waitFor();
    await expect(toggle().getAttribute('aria-expanded')).resolves.toBe('true');
  });
});
