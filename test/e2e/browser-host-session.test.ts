/**
 * The browser host's door over one run: a reloaded tab keeps working (its key stays in the
 * tab's sessionStorage, never in the address), a tab without the key says in full how to
 * reconnect, and "Add files…" finds files picked from a sub-folder of the host's root.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0)
  console.warn(`skipping the host session e2e: missing ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('the browser host across reloads and new tabs', () => {
  let app: E2eApp;
  let page: Page;
  let deep: string;

  beforeAll(async () => {
    app = await E2eApp.create('courier-host-session-e2e-');
    deep = join(app.masters, 'Label', '2024', 'Harbour');
    await mkdir(deep, { recursive: true });
    for (const name of ['01 Dawn.mp3', '02 Noon.mp3']) {
      await makeTaggedAudio('mp3', join(deep, name), 'id3v2.4', { title: name.slice(3, -4) });
    }
    page = await app.open({ viewport: { width: 1280, height: 720 } });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('keeps a reloaded tab connected, with no key left in the address', async () => {
    expect(page.url()).not.toContain('token');
    await page.reload();
    await page.getByTestId('connection').getByText('Browser host').waitFor();
    expect(page.url()).not.toContain('token');
    expect(await page.getByTestId('not-connected').count()).toBe(0);
  }, 60_000);

  it('adds files picked one by one from a sub-folder of the root', async () => {
    await app.nav('Library').click();
    await page
      .getByTestId('add-files')
      .setInputFiles([join(deep, '01 Dawn.mp3'), join(deep, '02 Noon.mp3')]);
    await page.getByTestId('library-summary').getByText('2 tracks').waitFor();
    expect(await page.getByTestId('ignored').count()).toBe(0);
  }, 60_000);

  it('tells a new tab, in full, that it has no key and how to reconnect', async () => {
    // A new tab starts with empty sessionStorage, as a page of its own context does.
    const other = await page
      .context()
      .browser()!
      .newPage({ viewport: { width: 1280, height: 720 } });
    try {
      await other.goto(new URL('/', app.host.url).href);
      const alert = other.getByTestId('not-connected');
      await alert.getByText('Not connected to Courier').waitFor();
      await expect
        .poll(async () => (await alert.textContent()) ?? '')
        .toContain(
          'This tab has no key for the Courier browser host (a new tab does not get one): open the address the browser host printed when it started (it ends in #token=…).',
        );
      const box = (await alert.boundingBox())!;
      expect(box.width).toBe(1280);
      expect(box.height).toBe(720);
      await other.screenshot({ path: await artifactPath('browser-host-no-key.png') });
    } finally {
      await other.close();
    }
  }, 60_000);
});
