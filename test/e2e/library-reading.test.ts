/// <reference lib="dom" />
/**
 * How the page reads picked files in Chromium: a tags worker gets its files as one Blob and
 * reads them with one round trip to the browser process (`readGroup` in read-file.ts). Checked
 * here on real files: small ones whole, a long one by its ends (its only tag is at its end), and
 * a file changed on disk after it was picked, which fails alone.
 */
import { appendFile, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  makeLongMp3WithTailTag,
  makeTaggedAudio,
  missingFixtureTools,
} from '../support/audio-fixtures.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`library reading e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the library reading e2e test: missing ${missing.join(', ')}`);
}

const titles = ['Morning', 'Noon', 'Evening', 'Night'];

/** Makes `album` with four small tagged files, alternating MP3 and FLAC. */
async function makeAlbum(album: string, name: string): Promise<string[]> {
  await mkdir(album, { recursive: true });
  const files: string[] = [];
  for (const [i, title] of titles.entries()) {
    const flac = i % 2 === 1;
    const file = `0${i + 1} ${title}.${flac ? 'flac' : 'mp3'}`;
    await makeTaggedAudio(flac ? 'flac' : 'mp3', join(album, file), flac ? 'vorbis' : 'id3v2.4', {
      title,
      artists: ['Ada Moss'],
      album: name,
      isrc: `GBAYE26000${i + 1}0`,
      track: `${i + 1}/4`,
    });
    files.push(file);
  }
  return files;
}

describe.skipIf(missing.length > 0)('reading picked files in Chromium', () => {
  let app: E2eApp;
  let page: Page;
  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const title = async (file: string) =>
    ((await row(file).locator('[data-column="title"]').textContent()) ?? '').trim();

  beforeAll(async () => {
    app = await E2eApp.create('courier-reading-e2e-');
    page = await app.open({ viewport: { width: 1400, height: 820 } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('reads small files whole and a long one by its ends, with every tag', async () => {
    const album = join(app.masters, 'Daylight');
    const files = await makeAlbum(album, 'Daylight');
    await makeLongMp3WithTailTag(join(album, '05 Long Dusk.mp3'), 'Long Dusk');
    await app.addFolder(album, 5);
    for (const [i, file] of files.entries()) {
      await expect.poll(() => title(`Daylight/${file}`)).toBe(titles[i]);
    }
    await expect.poll(() => title('Daylight/05 Long Dusk.mp3')).toBe('Long Dusk');
    await expect(page.getByTestId('ignored').count()).resolves.toBe(0);
  });

  it('lists a file changed after it was picked as unreadable, and reads the others', async () => {
    const album = join(app.masters, 'Changed');
    const files = await makeAlbum(album, 'Changed');
    const changed = join(album, files[2]!);
    // When the page sees the pick, it asks every file's size (as the app will, and keeps), then
    // the file changes on disk before the app reads it: a synchronous request holds the page
    // while this test appends to the file.
    await page.route('**/__test/change-file', async (route) => {
      await appendFile(changed, new Uint8Array(4096));
      const later = new Date(Date.now() + 60_000);
      await utimes(changed, later, later);
      await route.fulfill({ status: 200, body: 'changed' });
    });
    await page.evaluate(() => {
      document.addEventListener(
        'change',
        (event) => {
          const files = (event.target as HTMLInputElement).files;
          for (let i = 0; i < (files?.length ?? 0); i++) void files?.item(i)?.size;
          const request = new XMLHttpRequest();
          request.open('GET', '/__test/change-file', false);
          request.send();
        },
        { capture: true, once: true },
      );
    });
    await page.getByTestId('add-folder').setInputFiles(album);
    await page.getByTestId('library-summary').getByText('8 tracks').waitFor();
    await page.getByTestId('read-progress').waitFor({ state: 'detached' });
    for (const i of [0, 1, 3]) {
      await expect.poll(() => title(`Changed/${files[i]}`)).toBe(titles[i]);
    }
    await expect(row(`Changed/${files[2]}`).count()).resolves.toBe(0);
    const ignored = page.getByTestId('ignored');
    await ignored.getByText('1 file ignored').click();
    const reasons = await ignored.locator('li').allTextContents();
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(new RegExp(`^Changed/${files[2]}: the page could not read it`));
  });

  it('reads a file whose tags could not be read when it is added again, once mended', async () => {
    const album = join(app.masters, 'Mended');
    const files = await makeAlbum(album, 'Mended');
    const broken = join(album, '05 Broken.mp3');
    await writeFile(broken, new Uint8Array(4096).fill(0x55));
    // Beside the 8 tracks the tests above added.
    await app.addFolder(album, 13);
    const status = row('Mended/05 Broken.mp3').locator('[data-column="status"]');
    await expect.poll(() => status.getAttribute('title')).toMatch(/no audio found in the file/);
    // The label writes the master again, tagged, and adds the folder again: the same five
    // tracks, the mended one read.
    await rm(broken);
    await makeTaggedAudio('mp3', broken, 'id3v2.4', {
      title: 'Mended Dusk',
      artists: ['Ada Moss'],
    });
    await page.getByTestId('add-folder').setInputFiles(album);
    await expect.poll(() => title('Mended/05 Broken.mp3')).toBe('Mended Dusk');
    await page.getByTestId('read-progress').waitFor({ state: 'detached' });
    for (const [i, file] of files.entries()) {
      await expect.poll(() => title(`Mended/${file}`)).toBe(titles[i]);
    }
    await expect(page.getByTestId('library-summary').textContent()).resolves.toMatch(/\b13 tracks/);
  });
});
