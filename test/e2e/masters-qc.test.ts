/**
 * Masters QC through the real UI in Chromium via the browser host, on the embedded sandbox: a
 * folder with a master cut short shows it blocked in the grid, the QC columns and the
 * inspector's Master section say what each master is, the Deliver view's Check names the cut
 * (main reads the file itself), and "Deliver this master as it is" lets it go.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeAudio, missingFixtureTools, writeTags } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`masters QC e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the masters QC e2e test: missing ${missing.join(', ')}`);
}

describe.skipIf(missing.length > 0)('masters QC in Chromium', () => {
  let app: E2eApp;
  let album: string;
  let page: Page;

  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const shot = async (name: string) => page.screenshot({ path: await artifactPath(name) });

  beforeAll(async () => {
    app = await E2eApp.create('courier-qc-e2e-');
    album = join(app.masters, 'Tape Reels');
    await mkdir(album, { recursive: true });
    for (const [i, name] of ['01 Whole.flac', '02 Cut.flac'].entries()) {
      await makeAudio('flac', join(album, name), { seconds: 4 });
      await writeTags([
        {
          path: join(album, name),
          family: 'vorbis',
          tags: {
            title: name.slice(3, -5),
            artists: ['Mira Holt'],
            album: 'Tape Reels',
            isrc: `GBAYE210030${i}`,
            track: String(i + 1),
            date: '2024-03-01',
          },
        },
      ]);
    }
    const cut = join(album, '02 Cut.flac');
    const bytes = await readFile(cut);
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    page = await app.open({ viewport: { width: 1500, height: 900 } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('shows the cut master blocked, with its QC in the grid and the inspector', async () => {
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(album, 2);
    const status = row('Tape Reels/02 Cut.flac').locator('.cell.status');
    await expect.poll(() => status.getAttribute('class')).toContain('error');
    // The QC columns are hidden until asked for.
    await page.locator('.columns-menu summary').click();
    for (const label of ['Format', 'Sample rate', 'Duration']) {
      await page
        .getByRole('list', { name: 'Columns' })
        .getByRole('checkbox', { name: label, exact: true })
        .check();
    }
    await page.locator('.columns-menu summary').click();
    const cell = (column: string) =>
      row('Tape Reels/01 Whole.flac').locator(`[data-column="${column}"]`).textContent();
    await expect.poll(() => cell('qc_format')).toContain('FLAC');
    expect((await cell('qc_rate'))?.trim()).toBe('8 kHz');
    await row('Tape Reels/02 Cut.flac').locator('[data-column="title"]').click();
    const inspector = page.getByTestId('inspector');
    await expect
      .poll(() => inspector.getByTestId('master-qc').textContent())
      .toMatch(/^\s*FLAC · lossless · 8 kHz · 16-bit/);
    await expect
      .poll(() => inspector.getByRole('list', { name: 'Problems' }).textContent())
      .toMatch(/the master is cut short: it ends at 0:0\d\.\d of 0:04\.0/);
    await shot('qc-01-cut-master.png');
  });

  it('is accepted as it is with one click, and the Check agrees', async () => {
    const inspector = page.getByTestId('inspector');
    await inspector.getByRole('checkbox', { name: /Deliver this master as it is/ }).check();
    const status = row('Tape Reels/02 Cut.flac').locator('.cell.status');
    await expect.poll(() => status.getAttribute('class')).not.toContain('error');
    await expect
      .poll(() => inspector.getByRole('list', { name: 'Problems' }).textContent())
      .toContain('accepted as it is');
    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await expect
      .poll(() => page.locator('main').textContent(), { timeout: 20_000 })
      .toContain('accepted as it is');
    await shot('qc-02-accepted.png');
  });
});
