/**
 * The pre-flight says which library files it leaves out and why: a 0-byte master is listed in
 * the Library but not delivered, and the Deliver view's file count says so beside it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping the pre-flight e2e: missing ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('the pre-flight of a library holding an empty file', () => {
  let app: E2eApp;
  let page: Page;
  let album: string;

  beforeAll(async () => {
    app = await E2eApp.create('courier-left-out-e2e-');
    album = join(app.masters, 'Shoreline');
    await mkdir(album, { recursive: true });
    for (const [i, name] of ['01 Dawn.mp3', '02 Noon.mp3'].entries()) {
      await makeTaggedAudio('mp3', join(album, name), 'id3v2.4', {
        title: name.slice(3, -4),
        artists: ['Mara Quinn'],
        album: 'Shoreline',
        isrc: `GBAYE230010${i + 1}`,
        track: `${i + 1}/3`,
        date: '2023-01-02',
      });
    }
    await writeFile(join(album, '03 Empty.mp3'), '');
    page = await app.open({ viewport: { width: 1400, height: 860 } });
    await app.useSandboxProfile();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('counts 2 files of 3 and names the empty one, saying why', async () => {
    await app.nav('Library').click();
    await app.addFolder(album, 3);
    await app.nav('Deliver').click();
    await page.getByRole('button', { name: 'Check' }).click();
    const facts = page.getByTestId('preflight-facts');
    await facts.waitFor();
    const leftOut = page.getByTestId('left-out');
    await expect
      .poll(async () => (await leftOut.textContent())?.trim())
      .toBe('— 1 file left out: 03 Empty.mp3 is empty (0 bytes)');
    expect((await facts.textContent()) ?? '').toMatch(/Files\s*2\b/);
    // No message in the pre-flight carries a control character (the markup's own line breaks aside).
    // eslint-disable-next-line no-control-regex
    const control = new RegExp('[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]');
    expect((await page.getByTestId('preflight').textContent()) ?? '').not.toMatch(control);
    await page.screenshot({ path: await artifactPath('preflight-left-out.png') });
  }, 90_000);
});
