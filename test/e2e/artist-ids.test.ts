/**
 * Artist ids as the user sees them and as the service receives them, through the real UI in
 * Chromium via the browser host and the embedded sandbox: an artist without an id of the
 * label's own is shown as "id from name" and the pre-flight says its name is sent as its id;
 * an id given on one track and used on every track of that artist reaches the service on all.
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
  if (process.env.CI === 'true') throw new Error(`artist ids e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the artist ids e2e test: missing ${missing.join(', ')}`);
}

const tracks = [
  { name: '01 Tidal.mp3', title: 'Tidal', isrc: 'GBAYE2600101' },
  { name: '02 Ember.mp3', title: 'Ember', isrc: 'GBAYE2600102' },
  { name: '03 Quiet.mp3', title: 'Quiet', isrc: 'GBAYE2600103' },
];

interface Entry {
  outer_id: string;
  metadata: { artists?: { id: string; name: string; role: string }[] };
}

describe.skipIf(missing.length > 0)('artist ids in Chromium', () => {
  let app: E2eApp;
  let page: Page;

  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const shot = async (name: string) =>
    page.screenshot({ path: await artifactPath(`artist-ids-${name}.png`) });
  const preflight = () => page.getByTestId('preflight');

  beforeAll(async () => {
    app = await E2eApp.create('courier-artist-ids-e2e-');
    const dir = join(app.masters, 'Aurora Vale - Shorelines');
    await mkdir(dir, { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio('mp3', join(dir, t.name), 'id3v2.4', {
        title: t.title,
        artists: ['Aurora Vale'],
        album: 'Shorelines',
        isrc: t.isrc,
        track: `${i + 1}/${tracks.length}`,
        date: '2025-03-07',
      });
    }
    page = await app.open({ viewport: { width: 1400, height: 900 } });
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(dir, tracks.length);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('shows an artist without an id as sent by name, in the inspector and the pre-flight', async () => {
    await row('01 Tidal.mp3').locator('[data-column="title"]').click();
    const inspector = page.getByTestId('inspector');
    await inspector.getByTestId('artist-id-from-name').waitFor();
    await expect(
      inspector.getByRole('textbox', { name: 'Artist id of Aurora Vale (Main)' }).inputValue(),
    ).resolves.toBe('');

    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight().getByText('Pre-flight — ready').waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('artist-ids-note').textContent()).resolves.toMatch(
      /^1 artist is sent with its name as its id \("Aurora Vale"\); /,
    );
    await shot('01-preflight-from-name');
  });

  it('gives the id typed on one track to every track of that artist, and the service gets it', async () => {
    await app.nav('Library').click();
    await row('01 Tidal.mp3').locator('[data-column="title"]').click();
    const inspector = page.getByTestId('inspector');
    const id = inspector.getByRole('textbox', { name: 'Artist id of Aurora Vale (Main)' });
    await id.fill('AV-0042');
    await id.press('Enter');
    const everywhere = inspector.getByTestId('artist-id-everywhere');
    await expect.poll(() => everywhere.textContent()).toBe('Use on 2 more tracks');
    await shot('02-use-everywhere');
    await everywhere.click();
    await everywhere.waitFor({ state: 'detached' });
    await row('03 Quiet.mp3').locator('[data-column="title"]').click();
    await expect.poll(() => id.inputValue()).toBe('AV-0042');
    await expect(inspector.getByTestId('artist-id-from-name').count()).resolves.toBe(0);

    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await preflight().getByText('Pre-flight — ready').waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('artist-ids-note').count()).resolves.toBe(0);
    await page.getByTestId('deliver-now').click();
    await page
      .getByTestId('transfer')
      .first()
      .getByTestId('transfer-state')
      .getByText('done')
      .waitFor({ timeout: 60_000 });

    const catalog = (await app.sandbox()).catalogs[0]!.id;
    const entries = (await app.inspect(
      `/sandbox/catalogs/${catalog}/entries`,
    )) as unknown as Entry[];
    expect(entries).toHaveLength(tracks.length);
    for (const entry of entries) {
      expect(entry.metadata.artists).toEqual([
        { id: 'AV-0042', name: 'Aurora Vale', role: 'Main' },
      ]);
    }
  });
});
