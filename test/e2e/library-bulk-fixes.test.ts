/**
 * The bulk tools through the real UI in Chromium via the browser host: an artist credit that
 * reads as two artists ("Aurora Vale feat. Nils Berg") is split with one click from the bulk
 * menu; the grid's Artists column and the CSV export then show both artists with their roles,
 * and one Undo takes the split back.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseCsvText } from '../../src-main/core/model/csv-text.js';
import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`bulk fixes e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the bulk fixes e2e test: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('one-click bulk fixes in Chromium', () => {
  let app: E2eApp;
  let page: Page;

  const duet = 'Harbour Lights/01 Lanterns.flac';
  const solo = 'Harbour Lights/02 Tideline.flac';
  const cell = (file: string, column: string): Locator =>
    page
      .locator('[role="row"][data-row-id]')
      .filter({ hasText: file })
      .locator(`[data-column="${column}"]`);
  const text = async (file: string, column: string) =>
    ((await cell(file, column).textContent()) ?? '').trim();
  const shot = async (name: string) => page.screenshot({ path: await artifactPath(name) });

  beforeAll(async () => {
    app = await E2eApp.create('courier-bulk-fixes-e2e-');
    const album = join(app.masters, 'Harbour Lights');
    await mkdir(album, { recursive: true });
    const common = { album: 'Harbour Lights', barcode: '5099902988023', date: '2022-09-30' };
    await makeTaggedAudio('flac', join(app.masters, duet), 'vorbis', {
      ...common,
      title: 'Lanterns',
      artists: ['Aurora Vale feat. Nils Berg'],
      isrc: 'GBAYE2200001',
      track: '1',
    });
    await makeTaggedAudio('flac', join(app.masters, solo), 'vorbis', {
      ...common,
      title: 'Tideline',
      artists: ['Aurora Vale'],
      isrc: 'GBAYE2200002',
      track: '2',
    });
    page = await app.open({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    await app.addFolder(album, 2);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('splits the artist credit with one click; the grid and the export show both artists', async () => {
    await expect.poll(() => text(duet, 'artists')).toBe('Aurora Vale feat. Nils Berg');
    await page.getByRole('button', { name: 'Fixes', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Bulk fixes' });
    await panel.getByText('Applies to all 2 tracks shown').waitFor();
    const split = panel.getByRole('button', { name: 'Split artists (1 track)' });
    await split.click();

    await expect.poll(() => text(duet, 'artists')).toBe('Aurora Vale · feat. Nils Berg');
    expect(await text(solo, 'artists')).toBe('Aurora Vale');
    await panel.getByRole('button', { name: 'Split artists (nothing to fix)' }).waitFor();
    // The warning that offered the split is gone from the grid.
    await expect.poll(() => cell(duet, 'artists').getAttribute('title')).toBeNull();
    await shot('bulk-split-artists.png');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const path = (await (await download).path())!;
    const [header, ...rows] = parseCsvText(await readFile(path, 'utf8'));
    const column = (name: string) => rows.map((row) => row[header!.indexOf(name)]);
    expect(column('file')).toEqual([duet, solo]);
    expect(column('artists')).toEqual(['Aurora Vale', 'Aurora Vale']);
    expect(column('featured')).toEqual(['Nils Berg', '']);

    // One step to undo.
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => text(duet, 'artists')).toBe('Aurora Vale feat. Nils Berg');
    await shot('bulk-split-undone.png');
  });
});
