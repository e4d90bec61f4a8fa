/**
 * Every view passes axe-core's WCAG 2 A/AA rules in the light and the dark theme, through the
 * real UI in Chromium via the browser host, against the embedded sandbox: the Library empty, with
 * rows and the inspector, asking before Clear; Deliver with a pre-flight; Transfers and History
 * after a delivery; Tags, Bucket, Connect with the profile editor, and Settings.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { accessibilityViolations } from '../support/accessibility.js';
import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`accessibility e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the accessibility e2e test: missing ${missing.join(', ')}`);
}

// Tides' ISRC is too short: an error the Library and the pre-flight show (their colours checked).
const tracks = [
  { name: '01 Opening.mp3', title: 'Opening', isrc: 'GBAYE2300101' },
  { name: '02 Drift.mp3', title: 'Drift', isrc: 'GBAYE2300102' },
  { name: '03 Tides.mp3', title: 'Tides', isrc: 'GBAYE23' },
];

describe.skipIf(missing.length > 0)('accessibility of every view (axe-core, WCAG 2 A/AA)', () => {
  let app: E2eApp;
  let album: string;
  let page: Page;

  /** The violations in the light and then the dark theme, each line saying which. */
  async function audit(view: string): Promise<string[]> {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const lines = await accessibilityViolations(page);
      found.push(...lines.map((line) => `${view}, ${colorScheme}: ${line}`));
      await page.screenshot({ path: await artifactPath(`a11y-${view}-${colorScheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    return found;
  }

  beforeAll(async () => {
    app = await E2eApp.create('courier-a11y-e2e-');
    album = join(app.masters, 'Low Tide');
    await mkdir(album, { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio('mp3', join(album, t.name), 'id3v2.4', {
        title: t.title,
        artists: ['Mara Quinn'],
        album: 'Low Tide',
        isrc: t.isrc,
        barcode: '5099902988023',
        track: `${i + 1}/3`,
        date: '2022-03-04',
      });
    }
    page = await app.open({ viewport: { width: 1400, height: 900 } });
    await app.useSandboxProfile();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('has no violation in the empty Library', async () => {
    await app.nav('Library').click();
    await page.getByText('Drop folders of masters anywhere in this window').waitFor();
    expect(await audit('library-empty')).toEqual([]);
  });

  it('has no violation in the Library with rows, a finding and the inspector open', async () => {
    await app.addFolder(album, tracks.length);
    await page
      .locator('[role="row"][data-row-id]')
      .filter({ hasText: '03 Tides.mp3' })
      .locator('[data-column="title"]')
      .click();
    await page.getByTestId('inspector').getByText('Low Tide/03 Tides.mp3').waitFor();
    expect(await audit('library-rows')).toEqual([]);
  });

  it('has no violation while the Library asks before Clear', async () => {
    await page.getByRole('button', { name: 'Clear…' }).click();
    const confirm = page.getByRole('group', { name: 'Clear the library?' });
    await confirm.waitFor();
    expect(await audit('library-clear')).toEqual([]);
    await confirm.getByRole('button', { name: 'Keep' }).click();
  });

  it('has no violation in Deliver with a blocked and then a ready pre-flight', async () => {
    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('preflight').getByText('blocking error').waitFor();
    const blocked = await audit('deliver-blocked');
    await page.getByLabel('Skip tracks with errors').check();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('preflight').getByText('Pre-flight — ready').waitFor();
    expect([...blocked, ...(await audit('deliver-ready'))]).toEqual([]);
  });

  it('has no violation in Transfers and History after a delivery', async () => {
    await page.getByTestId('deliver-now').click();
    const transfer = page.getByTestId('transfer').first();
    await transfer.getByTestId('transfer-state').getByText('done').waitFor({ timeout: 60_000 });
    const transfers = await audit('transfers');
    await app.nav('History').click();
    await page.getByRole('button', { name: 'Details' }).first().click();
    await page.getByTestId('history-requests').first().getByText('1/1 accepted').waitFor();
    // Audited with the request and its answer shown (they come on demand).
    await page.getByLabel('Response to request 1').waitFor();
    expect([...transfers, ...(await audit('history'))]).toEqual([]);
  }, 90_000);

  it('has no violation in the Library grouped by album, with a track excluded and the catalog column', async () => {
    await app.nav('Library').click();
    await page
      .locator('[role="row"][data-row-id]')
      .filter({ hasText: '02 Drift.mp3' })
      .locator('[data-column="title"]')
      .click();
    await page.getByRole('button', { name: 'Exclude', exact: true }).click();
    await page.getByLabel('Group by album').check();
    await page.locator('[role="row"][data-album-key]').first().waitFor();
    const grouped = await audit('library-grouped');
    // The catalog standing sits in the last columns: scrolled into view, as a user does.
    await page.getByTestId('track-grid').evaluate((grid) => grid.scrollTo(grid.scrollWidth, 0));
    expect([...grouped, ...(await audit('library-catalog'))]).toEqual([]);
    await page.getByLabel('Group by album').uncheck();
  });

  it('has no violation in Tags and Bucket', async () => {
    await app.nav('Tags').click();
    await page.getByTestId('tag-count').waitFor();
    const tags = await audit('tags');
    await app.nav('Bucket').click();
    await page.getByRole('button', { name: /delivery\// }).waitFor();
    expect([...tags, ...(await audit('bucket'))]).toEqual([]);
  });

  it('has no violation in Connect and its profile editor', async () => {
    await app.nav('Connect').click();
    await page.getByTestId('try-sandbox').waitFor();
    const connect = await audit('connect');
    await page.getByRole('button', { name: 'Connect your account' }).last().click();
    await page.getByRole('button', { name: 'Save profile' }).waitFor();
    const editor = await audit('connect-editor');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect([...connect, ...editor]).toEqual([]);
  });

  it('has no violation in Settings', async () => {
    await app.nav('Settings').click();
    await page.getByLabel('Upload concurrency').waitFor();
    expect(await audit('settings')).toEqual([]);
  });
});
