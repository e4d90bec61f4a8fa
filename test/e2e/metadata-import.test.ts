/// <reference lib="dom" />
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseCsvText } from '../../src-main/core/model/csv-text.js';
import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`metadata import e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the metadata import e2e test: missing ${missing.join(', ')}`);
}

// Issue #18: two tracks of one album share an ISRC; a CSV row naming one of them by its path
// rewrote the other too, and said "1 of 1 rows match a track".
describe.skipIf(missing.length > 0)('a metadata CSV in Chromium through the browser host', () => {
  let app: E2eApp;
  let page: Page;

  const foghorn = 'Tides/CD1/06 Foghorn Blues.mp3';
  const ebb = 'Tides/CD2/04 Ebb.m4a';
  const cell = (file: string, column: string): Locator =>
    page
      .locator('[role="row"][data-row-id]')
      .filter({ hasText: file })
      .locator(`[data-column="${column}"]`);
  const text = async (file: string, column: string) =>
    ((await cell(file, column).textContent()) ?? '').trim();
  const shot = async (name: string) => page.screenshot({ path: await artifactPath(name) });

  beforeAll(async () => {
    app = await E2eApp.create('courier-metadata-import-e2e-');
    const album = join(app.masters, 'Tides');
    await mkdir(join(album, 'CD1'), { recursive: true });
    await mkdir(join(album, 'CD2'), { recursive: true });
    const common = {
      artists: ['Lena Park'],
      album: 'Tides',
      isrc: 'GBAYE2100006',
      barcode: '0036000291452',
      date: '2021-05-14',
    };
    await makeTaggedAudio('mp3', join(app.masters, foghorn), 'id3v2.4', {
      ...common,
      title: 'Foghorn Blues',
      track: '6',
      disk: '1',
    });
    await makeTaggedAudio('m4a-aac', join(app.masters, ebb), 'mp4', {
      ...common,
      title: 'Ebb',
      track: '4',
      disk: '2',
    });
    page = await app.open({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    await app.addFolder(album, 2);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('changes only the track a row names; a row with only the shared ISRC waits for a pick', async () => {
    const csvPath = join(app.home, 'label-sheet.csv');
    // As a spreadsheet saved it: the UPC lost its leading zeros, the track number its 0.
    await writeFile(
      csvPath,
      'File name,ISRC,Title,Track,Disc,UPC\r\n' +
        'CD1/06 Foghorn Blues.mp3,GBAYE2100006,Foghorn Blues (Live),06,1,36000291452\r\n' +
        ',GBAYE2100006,Ebb and Flow,6,1,\r\n',
    );
    await page.getByTestId('import-csv').setInputFiles(csvPath);
    const dialog = page.getByRole('dialog');
    const summary = dialog.getByTestId('csv-summary');
    await expect
      .poll(async () => ((await summary.textContent()) ?? '').replace(/\s+/g, ' '))
      .toMatch(/2 rows: 1 matched · 1 ambiguous · 0 unmatched — 1 change\b/);
    const ambiguous = dialog.getByTestId('csv-ambiguous');
    await ambiguous.getByText(`matches ${foghorn}, ${ebb}`).waitFor();
    await dialog
      .getByTestId('csv-notes')
      .getByText(/'0036000291452' is kept/)
      .waitFor();
    await shot('metadata-import-ambiguous.png');

    await dialog.getByRole('button', { name: 'Apply 1 change' }).click();
    await expect.poll(() => text(foghorn, 'title')).toBe('Foghorn Blues (Live)');
    // Ebb is as it was: title, track 4, disk 2, and the album's UPC on both.
    expect([await text(ebb, 'title'), await text(ebb, 'track'), await text(ebb, 'disk')]).toEqual([
      'Ebb',
      '4',
      '2',
    ]);
    expect([await text(foghorn, 'upc'), await text(ebb, 'upc')]).toEqual([
      '0036000291452',
      '0036000291452',
    ]);
    await shot('metadata-import-applied.png');
  });

  it('exports every field and reads the export back as no change at all', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const path = (await (await download).path())!;
    const [header, ...rows] = parseCsvText(await readFile(path, 'utf8'));
    const column = (name: string) => rows.map((row) => row[header!.indexOf(name)]);
    expect(column('file')).toEqual([foghorn, ebb]);
    expect(column('upc')).toEqual(['0036000291452', '0036000291452']);
    expect(column('title')).toEqual(['Foghorn Blues (Live)', 'Ebb']);

    await page.getByTestId('import-csv').setInputFiles(path);
    const dialog = page.getByRole('dialog');
    await expect
      .poll(async () =>
        ((await dialog.getByTestId('csv-summary').textContent()) ?? '').replace(/\s+/g, ' '),
      )
      .toMatch(/2 rows: 2 matched · 0 ambiguous · 0 unmatched — 0 changes/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('exports an Excel workbook and imports it back as no change (leading zeros kept)', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export Excel' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('courier-tracks.xlsx');
    // The download's own path has no extension; a user's file keeps the name it was saved as.
    const saved = join(app.home, file.suggestedFilename());
    await file.saveAs(saved);
    await page.getByTestId('import-csv').setInputFiles(saved);
    const dialog = page.getByRole('dialog', { name: /Import/ });
    await expect
      .poll(async () =>
        ((await dialog.getByTestId('csv-summary').textContent()) ?? '').replace(/\s+/g, ' '),
      )
      .toMatch(/2 rows: 2 matched · 0 ambiguous · 0 unmatched — 0 changes/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});
