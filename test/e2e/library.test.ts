/// <reference lib="dom" />
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseCsvText } from '../../src-main/core/model/csv-text.js';
import { sheetColumnIds } from '../../src-main/core/model/metadata-columns.js';
import {
  type FixtureFormat,
  makeTaggedAudio,
  missingFixtureTools,
  type TagFamily,
} from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`library e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the library e2e test: missing ${missing.join(', ')}`);
}

const tracks: {
  name: string;
  format: FixtureFormat;
  family: TagFamily;
  title: string;
  isrc: string;
}[] = [
  {
    name: '01 Opening.mp3',
    format: 'mp3',
    family: 'id3v2.4',
    title: 'Opening',
    isrc: 'GBAYE2100001',
  },
  { name: '02 Drift.flac', format: 'flac', family: 'vorbis', title: 'Drift', isrc: 'GBAYE2100002' },
  {
    name: '03 Harbour.m4a',
    format: 'm4a-aac',
    family: 'mp4',
    title: 'Harbour',
    isrc: 'GBAYE2100003',
  },
  {
    name: '04 Night Bus.ogg',
    format: 'ogg',
    family: 'vorbis',
    title: 'Night Bus',
    isrc: 'GBAYE2100004',
  },
];

describe.skipIf(missing.length > 0)('the library in Chromium through the browser host', () => {
  let app: E2eApp;
  let album: string;
  let page: Page;

  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const cell = (file: string, column: string): Locator =>
    row(file).locator(`[data-column="${column}"]`);
  const text = async (file: string, column: string) =>
    ((await cell(file, column).textContent()) ?? '').trim();
  const shot = async (name: string) => page.screenshot({ path: await artifactPath(name) });

  beforeAll(async () => {
    app = await E2eApp.create('courier-library-e2e-');
    album = join(app.masters, 'Night Shift');
    await mkdir(album, { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio(t.format, join(album, t.name), t.family, {
        title: t.title,
        artists: ['Lena Park'],
        album: 'Night Shift',
        isrc: t.isrc,
        barcode: '5099902988023',
        track: `${i + 1}/4`,
        disk: '1',
        date: '2021-05-14',
        genres: ['Electronic'],
      });
    }
    await writeFile(join(album, 'notes.txt'), 'liner notes');
    page = await app.open({ viewport: { width: 1400, height: 820 }, acceptDownloads: true });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('shows an empty state before anything is added', async () => {
    await page.getByText('Drop folders of masters anywhere in this window').waitFor();
    await shot('library-empty.png');
  });

  it('adds a folder of tagged files and shows the values read from the tags', async () => {
    await app.addFolder(album, tracks.length);
    await page.getByTestId('ignored').getByText('1 file ignored').waitFor();
    for (const t of tracks) {
      await expect.poll(() => text(`Night Shift/${t.name}`, 'title')).toBe(t.title);
      await expect(text(`Night Shift/${t.name}`, 'isrc')).resolves.toBe(t.isrc);
      await expect(text(`Night Shift/${t.name}`, 'artists')).resolves.toBe('Lena Park');
      await expect(text(`Night Shift/${t.name}`, 'album')).resolves.toBe('Night Shift');
      await expect(text(`Night Shift/${t.name}`, 'upc')).resolves.toBe('5099902988023');
    }
    await expect(text('Night Shift/02 Drift.flac', 'track')).resolves.toBe('2');
    await expect(text('Night Shift/01 Opening.mp3', 'outer_id')).resolves.toBe('GBAYE2100001');
    await shot('library-prefilled.png');
  });

  it('adds the same folder twice only once', async () => {
    await page.getByTestId('add-folder').setInputFiles(album);
    await page.getByTestId('library-summary').getByText('4 tracks').waitFor();
    await expect(page.locator('[role="row"][data-row-id]').count()).resolves.toBe(4);
  });

  it('edits a cell from the keyboard', async () => {
    await cell('Night Shift/01 Opening.mp3', 'title').click();
    await page.keyboard.press('F2');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Opening (Remastered)');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => text('Night Shift/01 Opening.mp3', 'title'))
      .toBe('Opening (Remastered)');
    // Enter moved down a row; typing replaces the cell and Tab commits.
    await page.keyboard.type('Drift Away');
    await page.keyboard.press('Tab');
    await expect.poll(() => text('Night Shift/02 Drift.flac', 'title')).toBe('Drift Away');
    await shot('library-edited.png');
  });

  it('bulk-edits three rows in the inspector, leaving other fields alone', async () => {
    await cell('Night Shift/01 Opening.mp3', 'album_type').click();
    await cell('Night Shift/03 Harbour.m4a', 'album_type').click({ modifiers: ['Shift'] });
    const inspector = page.getByTestId('inspector');
    await inspector.getByText('3 tracks selected').waitFor();
    await expect(
      inspector.locator('input[data-field="title"]').getAttribute('placeholder'),
    ).resolves.toBe('(mixed)');
    // Only the selected rows: album fields per album would reach the fourth track too.
    await page.getByRole('checkbox', { name: 'Album fields per album' }).uncheck();
    const type = inspector.locator('input[data-field="album_type"]');
    await type.fill('Compilation');
    await type.press('Enter');
    for (const t of tracks.slice(0, 3)) {
      await expect.poll(() => text(`Night Shift/${t.name}`, 'album_type')).toBe('Compilation');
    }
    await expect(text('Night Shift/04 Night Bus.ogg', 'album_type')).resolves.toBe('');
    await expect(text('Night Shift/03 Harbour.m4a', 'title')).resolves.toBe('Harbour');
    await shot('library-bulk-edit.png');
  });

  it('shows a validation error on the cell and clears it when fixed', async () => {
    const isrc = cell('Night Shift/04 Night Bus.ogg', 'isrc');
    await isrc.dblclick();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('GB-AYE-21-0004');
    await page.keyboard.press('Enter');
    await expect.poll(() => isrc.getAttribute('aria-invalid')).toBe('true');
    await expect(isrc.getAttribute('title')).resolves.toContain('is not valid');
    await cell('Night Shift/04 Night Bus.ogg', 'isrc').click();
    await page.getByTestId('inspector').getByText('is not valid').first().waitFor();
    await shot('library-validation-error.png');
    await isrc.dblclick();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('GBAYE2100004');
    await page.keyboard.press('Enter');
    await expect.poll(() => isrc.getAttribute('aria-invalid')).toBe(null);
  });

  it('imports a CSV after previewing its changes, exports it again, and undoes the import', async () => {
    const csvPath = join(app.home, 'metadata.csv');
    await writeFile(
      csvPath,
      'ISRC,Title,Label copy\r\nGBAYE2100003,Harbour Lights,x\r\nGBAYE2100004,,y\r\nZZ0000000000,Nope,z\r\n',
    );
    await page.getByTestId('import-csv').setInputFiles(csvPath);
    const dialog = page.getByRole('dialog');
    await expect
      .poll(async () =>
        ((await dialog.getByTestId('csv-summary').textContent()) ?? '').replace(/\s+/g, ' '),
      )
      .toMatch(/3 rows: 2 matched · 0 ambiguous · 1 unmatched — 1 change\b/);
    await expect(dialog.getByText('1 change', { exact: false }).first().isVisible()).resolves.toBe(
      true,
    );
    await shot('library-csv-preview.png');
    await dialog.getByRole('button', { name: 'Apply 1 change' }).click();
    await expect.poll(() => text('Night Shift/03 Harbour.m4a', 'title')).toBe('Harbour Lights');
    // The empty Title cell of the second row did not erase Night Bus's title.
    await expect(text('Night Shift/04 Night Bus.ogg', 'title')).resolves.toBe('Night Bus');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const exported = await readFile((await (await download).path())!, 'utf8');
    // Every field, whatever columns the grid shows, after a BOM so Excel reads UTF-8.
    expect(exported.startsWith('\ufeff')).toBe(true);
    const [header, ...csvRows] = parseCsvText(exported);
    expect(header).toEqual([...sheetColumnIds]);
    const harbour = csvRows.find((r) => r[0] === 'Night Shift/03 Harbour.m4a')!;
    const value = (id: string) => harbour[header!.indexOf(id)];
    expect(
      ['title', 'artists', 'album', 'upc', 'isrc', 'release_date', 'track', 'disk'].map(value),
    ).toEqual([
      'Harbour Lights',
      'Lena Park',
      'Night Shift',
      '5099902988023',
      'GBAYE2100003',
      '2021-05-14',
      '3',
      '1',
    ]);

    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => text('Night Shift/03 Harbour.m4a', 'title')).toBe('Harbour');
    await shot('library-undone.png');
  });

  it('keeps the session (files and edits) across a restart', async () => {
    // The debounced save runs a second after the last edit.
    await page.waitForTimeout(1500);
    await page.reload();
    await page.getByTestId('library-summary').getByText('4 tracks').waitFor();
    await expect
      .poll(() => text('Night Shift/01 Opening.mp3', 'title'))
      .toBe('Opening (Remastered)');
    await expect(text('Night Shift/02 Drift.flac', 'album_type')).resolves.toBe('Compilation');
    await page.emulateMedia({ colorScheme: 'dark' });
    await cell('Night Shift/02 Drift.flac', 'title').click();
    await shot('library-dark.png');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows the saved rows after a restart, then marks a file changed on disk since', async () => {
    const changed = join(album, '04 Night Bus.ogg');
    const bytes = await readFile(changed);
    const { atime, mtime } = await stat(changed);
    await writeFile(changed, Buffer.concat([bytes, Buffer.alloc(16)]));
    try {
      await page.reload();
      await page.getByTestId('library-summary').getByText('4 tracks').waitFor();
      const status = row('Night Shift/04 Night Bus.ogg').locator('[role="gridcell"].status');
      await expect
        .poll(() => status.getAttribute('title'))
        .toMatch(/the file is gone or changed since it was added/);
      await page.getByTestId('files-checking').waitFor({ state: 'detached' });
      // The others are found unchanged.
      const others = row('Night Shift/01 Opening.mp3').locator('[role="gridcell"].status');
      await expect(others.getAttribute('title')).resolves.not.toMatch(/gone or changed/);
      await shot('library-reopened-changed-file.png');
    } finally {
      // As it was (its date too): the tests after this one find it unchanged.
      await writeFile(changed, bytes);
      await utimes(changed, atime, mtime);
    }
  });

  it('asks before Clear, and Undo brings every track back with its edits', async () => {
    await page.getByRole('button', { name: 'Clear…' }).click();
    const ask = page.getByRole('group', { name: 'Clear the library?' });
    await ask.getByText('Clear all 4 tracks?').waitFor();
    await shot('library-clear-asks.png');
    // Keep: nothing happens.
    await ask.getByRole('button', { name: 'Keep' }).click();
    await expect(page.locator('[role="row"][data-row-id]').count()).resolves.toBe(4);
    await app.clearLibrary();
    await page.getByRole('button', { name: 'Undo Clear 4 tracks' }).click();
    await page.getByTestId('library-summary').getByText('4 tracks').waitFor();
    await expect
      .poll(() => text('Night Shift/01 Opening.mp3', 'title'))
      .toBe('Opening (Remastered)');
    await shot('library-clear-undone.png');
  });

  it('restores a library cleared by mistake after the app restarted', async () => {
    await app.clearLibrary();
    // The debounced save runs a second after the change.
    await page.waitForTimeout(1500);
    await page.reload();
    const restore = page.getByRole('button', {
      name: /^Restore the earlier library \(4 tracks, kept /,
    });
    await restore.waitFor();
    await shot('library-restore-offered.png');
    await restore.click();
    await page.getByTestId('library-summary').getByText('4 tracks').waitFor();
    await expect
      .poll(() => text('Night Shift/01 Opening.mp3', 'title'))
      .toBe('Opening (Remastered)');
  });
});
