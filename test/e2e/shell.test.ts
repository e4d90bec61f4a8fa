/// <reference lib="dom" />
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { artifactPath, launchChromium } from '../support/chromium.js';
import { startWebHostProcess, type WebHostProcess } from '../support/web-host-process.js';

const packageJson = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };

describe('the app shell in Chromium through the browser host', () => {
  let home: string;
  let masters: string;
  let host: WebHostProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-e2e-'));
    masters = join(home, 'masters');
    await mkdir(join(masters, 'Album One', 'CD2'), { recursive: true });
    await writeFile(join(masters, 'Album One', '01 Opening.flac'), Buffer.alloc(2048, 1));
    await writeFile(join(masters, 'Album One', 'CD2', '01 Reprise.flac'), Buffer.alloc(4096, 2));
    host = await startWebHostProcess(['--port', '0', '--root', masters], {
      COURIER_HOME: join(home, 'data'),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(host.url);
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('renders the navigation between every view', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const label of [
      'Library',
      'Deliver',
      'Transfers',
      'History',
      'Tags',
      'Bucket',
      'Settings',
    ]) {
      await expect(nav.getByRole('button', { name: label }).isVisible()).resolves.toBe(true);
    }
    await page.getByRole('button', { name: 'History' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('History');
  });

  it('reaches main over IPC: app:info returns the version and data folder', async () => {
    await page.getByTestId('connection').getByText(`v${packageJson.version}`).waitFor();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByTestId('app-version').textContent()).resolves.toBe(packageJson.version);
    await expect(page.getByText(join(home, 'data'), { exact: true }).isVisible()).resolves.toBe(
      true,
    );
    await page.screenshot({ path: await artifactPath('shell-settings.png') });
  });

  it('takes a picked folder and main finds every file in it by path', async () => {
    await page.getByRole('button', { name: 'Library' }).click();
    await page.getByTestId('add-folder').setInputFiles(join(masters, 'Album One'));
    await page.getByTestId('library-summary').getByText('2 tracks').waitFor();
    const files = await page
      .locator('[role="row"][data-row-id] [data-column="file"]')
      .evaluateAll((cells) => cells.map((cell) => cell.textContent?.trim()));
    expect(files).toEqual(['Album One/01 Opening.flac', 'Album One/CD2/01 Reprise.flac']);
    await page.screenshot({ path: await artifactPath('shell-library.png') });
  });

  it('adds a folder picked twice only once', async () => {
    await page.getByTestId('add-folder').setInputFiles(join(masters, 'Album One'));
    await page.getByTestId('library-summary').getByText('2 tracks').waitFor();
    await expect(page.locator('[role="row"][data-row-id]').count()).resolves.toBe(2);
    // The picker let the files go as it handed them over (the add holds each no longer than
    // its chunk), and takes the same folder again.
    await expect(
      page.getByTestId('add-folder').evaluate((input: HTMLInputElement) => input.files?.length),
    ).resolves.toBe(0);
  });

  it('grants every file of a picked folder of 5,000 masters, each proved by its content', async () => {
    // Small files, and two over 128 KiB whose proof covers only their two ends.
    const box = join(masters, 'Box Set');
    for (let disc = 1; disc <= 50; disc++) {
      const folder = join(box, `Disc ${disc}`);
      await mkdir(folder, { recursive: true });
      await Promise.all(
        Array.from({ length: 100 }, (_, track) =>
          writeFile(join(folder, `${track + 1} Take.flac`), Buffer.alloc(1024, disc * 100 + track)),
        ),
      );
    }
    await writeFile(join(box, 'Long A.flac'), Buffer.alloc(1 << 20, 3));
    await writeFile(join(box, 'Long B.flac'), Buffer.alloc(1 << 20, 4));
    const started = Date.now();
    await page.getByTestId('add-folder').setInputFiles(box);
    await page
      .getByTestId('library-summary')
      .getByText(`${2 + 5_002} tracks`)
      .waitFor({ timeout: 100_000 });
    const seconds = (Date.now() - started) / 1000;
    console.info(`5,002 picked files granted and listed in ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(90);
  });

  it('follows the OS colour scheme', async () => {
    const background = () =>
      page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await background();
    expect(light).toBe('rgb(246, 247, 249)');
    expect(dark).toBe('rgb(20, 23, 28)');
    await page.screenshot({ path: await artifactPath('shell-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
