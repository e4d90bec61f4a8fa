/// <reference lib="dom" />
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
  if (process.env.CI === 'true') throw new Error(`library drop e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the library drop e2e test: missing ${missing.join(', ')}`);
}

/** The dropped folder's audio: four at its top, one in a nested subfolder. */
const tracks: {
  path: string;
  format: FixtureFormat;
  family: TagFamily;
  title: string;
  isrc: string;
}[] = [
  { path: '01 Tide.mp3', format: 'mp3', family: 'id3v2.3', title: 'Tide', isrc: 'GBAYE2200001' },
  { path: '02 Kelp.flac', format: 'flac', family: 'vorbis', title: 'Kelp', isrc: 'GBAYE2200002' },
  { path: '03 Gull.m4a', format: 'm4a-aac', family: 'mp4', title: 'Gull', isrc: 'GBAYE2200003' },
  { path: '04 Surf.ogg', format: 'ogg', family: 'vorbis', title: 'Surf', isrc: 'GBAYE2200004' },
  {
    path: 'Disc 2/05 Encore.mp3',
    format: 'mp3',
    family: 'id3v2.4',
    title: 'Encore',
    isrc: 'GBAYE2200005',
  },
];

/** More entries in one folder than Chromium hands out in one `readEntries()` chunk (100). */
const scans = 130;
/** The scans, the liner notes, a TAK (audio Courier cannot read) and a nested cover image. */
const ignoredCount = scans + 3;

describe.skipIf(missing.length > 0)('dropping a folder on the window', () => {
  let app: E2eApp;
  let folder: string;
  let page: Page;

  const rows = () => page.locator('[role="row"][data-row-id]');
  const text = async (file: string, column: string) =>
    (
      (await rows().filter({ hasText: file }).locator(`[data-column="${column}"]`).textContent()) ??
      ''
    ).trim();

  /**
   * Drops `path` on the middle of the window the way the OS does. CDP's
   * `Input.dispatchDragEvent` with `files` gives the browser process real paths, as a drag from
   * a file manager does: Chromium registers them in an isolated file system, so the page gets a
   * real `FileSystemDirectoryEntry` from `webkitGetAsEntry()`, and `readEntries()` hands the
   * folder out in Chromium's own chunks. A DataTransfer built in the page could only hold Files,
   * or entries faked in JavaScript, and would not exercise that walk.
   */
  const drop = async (path: string) => {
    const cdp = await page.context().newCDPSession(page);
    const data = { items: [], files: [path], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
      await cdp.send('Input.dispatchDragEvent', { type, x: 700, y: 400, data });
    }
    await cdp.detach();
  };

  beforeAll(async () => {
    app = await E2eApp.create('courier-library-drop-e2e-');
    folder = join(app.masters, 'Harbour Sessions');
    await mkdir(join(folder, 'Disc 2', 'Artwork'), { recursive: true });
    await mkdir(join(folder, 'Scans'), { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio(t.format, join(folder, t.path), t.family, {
        title: t.title,
        artists: ['Mara Quinn'],
        album: 'Harbour Sessions',
        isrc: t.isrc,
        barcode: '5099902988023',
        track: `${i + 1}/5`,
        disk: '1',
        date: '2022-03-04',
      });
    }
    for (let i = 1; i <= scans; i++) {
      await writeFile(join(folder, 'Scans', `booklet-${String(i).padStart(3, '0')}.jpg`), 'jpg');
    }
    await writeFile(join(folder, 'notes.txt'), 'liner notes');
    await writeFile(join(folder, 'demo.tak'), 'not delivered');
    await writeFile(join(folder, 'Disc 2', 'Artwork', 'cover.jpg'), 'jpg');

    page = await app.open({ viewport: { width: 1400, height: 820 } });
    // Counts the non-empty chunks the folder walk receives (the app's code is not changed),
    // from the reload on.
    // Chromium does not expose the reader's interface by name: its prototype is patched the
    // first time a dropped directory is seen.
    await page.addInitScript(() => {
      const chunks: number[] = [];
      Object.assign(window, { readEntriesChunks: chunks });
      const getAsEntry = DataTransferItem.prototype.webkitGetAsEntry;
      let patched = false;
      DataTransferItem.prototype.webkitGetAsEntry = function () {
        const entry = getAsEntry.call(this);
        if (entry?.isDirectory && !patched) {
          patched = true;
          const reader = (entry as FileSystemDirectoryEntry).createReader();
          const proto = Object.getPrototypeOf(reader) as FileSystemDirectoryReader;
          const readEntries = proto.readEntries;
          proto.readEntries = function (success, failure) {
            readEntries.call(
              this,
              (entries) => {
                if (entries.length > 0) chunks.push(entries.length);
                success(entries);
              },
              failure,
            );
          };
        }
        return entry;
      };
    });
    await page.reload();
    await page.getByTestId('connection').getByText('Browser host').waitFor();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('adds every audio file of the folder and its subfolders, with tags prefilled', async () => {
    await drop(folder);
    await page.getByTestId('library-summary').getByText(`${tracks.length} tracks`).waitFor();
    await page.getByTestId('read-progress').waitFor({ state: 'detached' });
    for (const t of tracks) {
      const file = `Harbour Sessions/${t.path}`;
      await expect.poll(() => text(file, 'title')).toBe(t.title);
      await expect(text(file, 'isrc')).resolves.toBe(t.isrc);
      await expect(text(file, 'artists')).resolves.toBe('Mara Quinn');
      await expect(text(file, 'album')).resolves.toBe('Harbour Sessions');
    }
    await expect(rows().count()).resolves.toBe(tracks.length);
    await page.screenshot({ path: await artifactPath('library-dropped.png') });
  });

  it('counts every ignored file, including all of a folder read in several chunks', async () => {
    await page.getByTestId('ignored').getByText(`${ignoredCount} files ignored`).waitFor();
    // The dropped folder and its three subfolders were walked; more non-empty chunks than folders means one came in pieces.
    const chunks = await page.evaluate(
      () => (window as unknown as { readEntriesChunks: number[] }).readEntriesChunks,
    );
    expect(chunks.length).toBeGreaterThan(4);
    // Every entry below the dropped folder: the files and the three subfolders.
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(tracks.length + ignoredCount + 3);
  });

  it('adds nothing twice when the same folder is dropped again', async () => {
    // A late master joins the folder: its row is appended in the same update as any duplicate
    // would be, so once it shows, a duplicate would show too.
    await makeTaggedAudio('flac', join(folder, 'Disc 2', '06 Coda.flac'), 'vorbis', {
      title: 'Coda',
      isrc: 'GBAYE2200006',
    });
    await drop(folder);
    await page
      .getByTestId('library-summary')
      .getByText(`${tracks.length + 1} tracks`)
      .waitFor();
    await expect.poll(() => text('Harbour Sessions/Disc 2/06 Coda.flac', 'title')).toBe('Coda');
    await expect(rows().count()).resolves.toBe(tracks.length + 1);
    await expect(page.getByTestId('ignored').textContent()).resolves.toContain(
      `${ignoredCount} files ignored`,
    );
  });
});
