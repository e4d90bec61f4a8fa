/**
 * After a delivery to the embedded sandbox, the Bucket view shows what the service wrote under
 * processed/audio/ (one folder per catalog, then per outer_id, two levels below), with names
 * holding `&`, `'` and spaces exactly as the files are named.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping the bucket e2e: missing ${missing.join(', ')}`);

const tracks = [
  { name: '01 Salt & Pepper.mp3', title: 'Salt & Pepper', isrc: 'GBAYE2200101' },
  { name: "02 Don't Look Back.mp3", title: "Don't Look Back", isrc: 'GBAYE2200102' },
  { name: '03 Harbour Lights.mp3', title: 'Harbour Lights', isrc: 'GBAYE2200103' },
];

describe.skipIf(missing.length > 0)('the Bucket view after a sandbox delivery', () => {
  let app: E2eApp;
  let page: Page;
  let album: string;

  beforeAll(async () => {
    app = await E2eApp.create('courier-bucket-e2e-');
    album = join(app.masters, 'Harbour');
    await mkdir(album, { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio('mp3', join(album, t.name), 'id3v2.4', {
        title: t.title,
        artists: ['Mara Quinn'],
        album: 'Harbour',
        isrc: t.isrc,
        track: `${i + 1}/${tracks.length}`,
        date: '2022-03-04',
      });
    }
    page = await app.open({ viewport: { width: 1400, height: 860 } });
    await app.useSandboxProfile();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('lists processed/audio/ down to each delivered file, names exact', async () => {
    await app.nav('Library').click();
    await app.addFolder(album, tracks.length);
    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('preflight').getByText('Pre-flight — ready').waitFor();
    await page.getByTestId('deliver-now').click();
    await page
      .getByTestId('transfer')
      .first()
      .getByTestId('transfer-state')
      .getByText('done')
      .waitFor({ timeout: 60_000 });

    await app.nav('Bucket').click();
    await page.getByRole('button', { name: 'Folder processed/' }).click();
    await page.getByRole('button', { name: 'Folder audio/' }).click();
    const table = page.locator('.bucket table');
    // One folder per catalog: the one delivered to.
    const catalog = page.getByRole('button', { name: /^Folder [0-9a-f-]{36}\/$/ });
    await catalog.waitFor();
    expect(await table.getByText('Empty.').count()).toBe(0);
    await catalog.click();
    for (const t of tracks) {
      await page.getByRole('button', { name: `Folder ${t.isrc}/` }).waitFor();
    }
    await page.screenshot({ path: await artifactPath('bucket-processed-audio.png') });
    for (const t of tracks) {
      await page.getByRole('button', { name: `Folder ${t.isrc}/` }).click();
      await page.getByRole('row', { name: t.name }).getByRole('cell', { name: t.name }).waitFor();
      await page
        .getByRole('navigation', { name: 'Bucket path' })
        .getByRole('button')
        .nth(3)
        .click();
      await page.getByRole('button', { name: `Folder ${tracks[0]!.isrc}/` }).waitFor();
    }
    await page.getByRole('button', { name: `Folder ${tracks[0]!.isrc}/` }).click();
    await page.getByRole('cell', { name: tracks[0]!.name, exact: true }).waitFor();
    await page.screenshot({ path: await artifactPath('bucket-processed-file.png') });
  }, 120_000);
});
