/**
 * Album-first review through the real UI in Chromium via the browser host (issue #18, "Misleads"):
 * a UPC written with 12 digits on one track (the leading zero a spreadsheet strips) keeps the
 * album one album with no gap warning; one invalid UPC on one track of 12 is said once on the
 * album ("1 track disagrees on UPC"), that track is not ✓, the other eleven carry no "no track N",
 * and the album panel's one-click fix sets the album's UPC on it as one step to undo.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  copyTemplate,
  makeAudio,
  missingFixtureTools,
  writeTags,
} from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`album e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the album e2e test: missing ${missing.join(', ')}`);
}

const UPC = '0602445566778';
const OTHER_UPC = '5099902988023';
/** Track n's file name: the album's word in it, so that no two tracks share an outer_id. */
const name = (n: number, album = 'Harbour') => `${String(n).padStart(2, '0')} ${album} ${n}.mp3`;

describe.skipIf(missing.length > 0)('album-first review in Chromium', () => {
  let app: E2eApp;
  let page: Page;

  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  /** The status cell as a user reads it: ✓, or ✕ / ⚠ with the count of findings ('' unread). */
  const status = async (file: string) => {
    const cell = row(file).locator('.cell.status');
    const level = /\b(ok|warning|error|reading)\b/.exec((await cell.getAttribute('class')) ?? '');
    const count = ((await cell.textContent()) ?? '').trim();
    const mark = { ok: '✓', warning: '⚠', error: '✕', reading: '' }[level?.[1] ?? 'reading']!;
    return level?.[1] === 'reading' ? '' : `${mark}${count}`;
  };
  const shot = async (file: string) => page.screenshot({ path: await artifactPath(file) });
  const inspector = () => page.getByTestId('inspector');
  const panel = () => page.getByTestId('album-panel');

  /** Twelve tracks of one album in `folder`; `upcOf` gives each track's UPC as written. */
  async function album(folder: string, title: string, word: string, upcOf: (n: number) => string) {
    const dir = join(app.masters, folder);
    await mkdir(dir, { recursive: true });
    const template = join(app.home, `${word}.mp3`);
    await makeAudio('mp3', template);
    const paths = Array.from({ length: 12 }, (_, i) => join(dir, name(i + 1, word)));
    await copyTemplate(template, paths);
    await writeTags(
      paths.map((path, i) => ({
        path,
        family: 'id3v2.4' as const,
        tags: {
          title: `Song ${i + 1}`,
          artists: ['Aurora Vale'],
          album: title,
          barcode: upcOf(i + 1),
          track: String(i + 1),
          date: '2021-05-14',
        },
      })),
    );
    return dir;
  }

  let harbour: string;
  let tides: string;

  beforeAll(async () => {
    app = await E2eApp.create('courier-albums-e2e-');
    harbour = await album('Harbour Lights', 'Harbour Lights', 'Harbour', (n) =>
      n === 3 ? UPC.slice(1) : UPC,
    );
    tides = await album('Tide Tables', 'Tide Tables', 'Tide', (n) =>
      n === 10 ? '12345' : OTHER_UPC,
    );
    page = await app.open({ viewport: { width: 1400, height: 1300 } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('keeps an album one whose UPC one track writes with 12 digits, with no gap warning', async () => {
    await app.addFolder(harbour, 12);
    for (let n = 1; n <= 12; n++) {
      await expect
        .poll(() => status(`Harbour Lights/${name(n)}`), { timeout: 10_000 })
        .not.toBe('');
    }
    // Every track but the one spelt with 12 digits (told the album's spelling) is ✓.
    for (let n = 1; n <= 12; n++) {
      if (n !== 3) await expect(status(`Harbour Lights/${name(n)}`)).resolves.toBe('✓');
    }
    await row(`Harbour Lights/${name(1)}`)
      .locator('[data-column="title"]')
      .click();
    await panel().waitFor();
    await expect(panel().getByTestId('album-upc').textContent()).resolves.toBe(UPC);
    await expect(panel().getByRole('list', { name: 'Album problems' }).count()).resolves.toBe(0);
    await expect(panel().getByText('— missing').count()).resolves.toBe(0);
    await expect(page.getByText(/no track \d/).count()).resolves.toBe(0);
    await shot('album-12-digit-upc.png');
  });

  it('says once that 1 track disagrees on UPC, leaves that track not ✓ and the others with no gap', async () => {
    await app.addFolder(tides, 24);
    const odd = `Tide Tables/${name(10, 'Tide')}`;
    await expect.poll(() => status(odd), { timeout: 10_000 }).toMatch(/^✕/);
    for (let n = 1; n <= 12; n++) {
      if (n !== 10) await expect(status(`Tide Tables/${name(n, 'Tide')}`)).resolves.toBe('✓');
    }
    await row(`Tide Tables/${name(1, 'Tide')}`)
      .locator('[data-column="title"]')
      .click();
    const problems = panel().getByRole('list', { name: 'Album problems' });
    await problems
      .getByText(
        `1 track disagrees on UPC: 11 have ${OTHER_UPC}, 1 has 12345 (${name(10, 'Tide')})`,
      )
      .waitFor();
    await expect(problems.getByRole('listitem').count()).resolves.toBe(1);
    await expect(page.getByText(/no track \d/).count()).resolves.toBe(0);
    // The first track's own findings: none (the album's are the panel's).
    await expect(
      inspector().getByRole('list', { name: 'Problems', exact: true }).count(),
    ).resolves.toBe(0);
    await shot('album-invalid-upc.png');

    // The odd track itself says what is wrong with it.
    await row(odd).locator('[data-column="title"]').click();
    await inspector()
      .getByRole('list', { name: 'Problems', exact: true })
      .getByText(`UPC 12345 differs from the other 11 tracks of 'Tide Tables' (${OTHER_UPC})`, {
        exact: false,
      })
      .waitFor();

    // Grouped by album, the odd UPC does not split the album.
    await page.getByLabel('Group by album').check();
    await page.getByText('Tide Tables — Aurora Vale · 12 tracks').waitFor();
    await expect(page.getByText(/^Tide Tables \(12345\)/).count()).resolves.toBe(0);
    await shot('album-grouped.png');
    await page.getByLabel('Group by album').uncheck();
  });

  it('fixes the album on one click, as one step to undo', async () => {
    const odd = `Tide Tables/${name(10, 'Tide')}`;
    await row(odd).locator('[data-column="title"]').click();
    await panel()
      .getByRole('button', { name: `Use ${OTHER_UPC} on all 12 tracks` })
      .click();
    await expect.poll(() => status(odd)).toBe('✓');
    await expect(panel().getByRole('list', { name: 'Album problems' }).count()).resolves.toBe(0);
    await shot('album-fixed.png');
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => status(odd)).toMatch(/^✕/);
  });

  it('lists every album added in the Album filter, and shows one album alone', async () => {
    const filter = page.getByRole('combobox', { name: 'Album' });
    // Until it is used, the filter lists only the album shown (none: All albums).
    await expect(filter.locator('option').count()).resolves.toBe(1);
    await filter.focus();
    // Harbour Lights was added first, Tide Tables later: the options follow the library.
    await expect
      .poll(async () => (await filter.locator('option').allTextContents()).map((t) => t.trim()))
      .toEqual([
        'All albums',
        expect.stringMatching(/^Harbour Lights/),
        expect.stringMatching(/^Tide Tables/),
      ]);
    const tides = await filter.locator('option', { hasText: 'Tide Tables' }).getAttribute('value');
    await filter.selectOption(tides!);
    await expect.poll(() => page.locator('[role="row"][data-row-id]').count()).toBe(12);
    // Left, it keeps the album chosen as its one option beside All albums.
    await page.getByTestId('track-grid').focus();
    await expect
      .poll(async () => (await filter.locator('option').allTextContents()).map((t) => t.trim()))
      .toEqual(['All albums', expect.stringMatching(/^Tide Tables/)]);
    await expect(filter.inputValue()).resolves.toBe(tides);
    await expect.poll(() => page.locator('[role="row"][data-row-id]').count()).toBe(12);
    await filter.focus();
    await expect(
      page.locator('[role="row"][data-row-id]', { hasText: 'Harbour' }).count(),
    ).resolves.toBe(0);
    await filter.selectOption('');
    await expect.poll(() => page.locator('[role="row"][data-row-id]').count()).toBe(24);
  });
});
