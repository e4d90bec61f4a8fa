/**
 * The app without a mouse, through the real UI in Chromium via the browser host: Tab reaches
 * the navigation and a visible focus ring shows where it is; a folder is added from the
 * keyboard (the OS dialog answered by the test); a grid cell is edited and committed; the
 * inspector collapses and opens again; Clear asks, Escape keeps the library, Clear empties it
 * and Ctrl+Z brings it back. No step clicks.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { FileChooser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTaggedAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`keyboard e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the keyboard e2e test: missing ${missing.join(', ')}`);
}

const tracks = [
  { name: '01 Opening.mp3', title: 'Opening' },
  { name: '02 Drift.mp3', title: 'Drift' },
];

describe.skipIf(missing.length > 0)('keyboard-only use', () => {
  let app: E2eApp;
  let album: string;
  let page: Page;
  /** The first file chooser the page opens. */
  let nextChooser: Promise<FileChooser>;

  /** What has the focus: its accessible-ish name (label, aria-label or text) and its role. */
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return '';
      const label = el.getAttribute('aria-label') ?? el.closest('label')?.textContent ?? '';
      return `${el.tagName.toLowerCase()}:${(label || el.textContent || '').trim()}`;
    });

  /** Presses Tab (or Shift+Tab) until the focus is on `target`; fails after `limit` presses. */
  async function tabTo(target: string | RegExp, back = false, limit = 60): Promise<void> {
    const seen: string[] = [];
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      const now = await focused();
      seen.push(now);
      if (typeof target === 'string' ? now === target : target.test(now)) return;
    }
    throw new Error(`Tab never reached ${String(target)}; it went through:\n${seen.join('\n')}`);
  }

  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const text = async (file: string, column: string) =>
    ((await row(file).locator(`[data-column="${column}"]`).textContent()) ?? '').trim();

  beforeAll(async () => {
    app = await E2eApp.create('courier-keyboard-e2e-');
    album = join(app.masters, 'Night Shift');
    await mkdir(album, { recursive: true });
    for (const [i, t] of tracks.entries()) {
      await makeTaggedAudio('mp3', join(album, t.name), 'id3v2.4', {
        title: t.title,
        artists: ['Lena Park'],
        album: 'Night Shift',
        isrc: `GBAYE210030${i}`,
        track: String(i + 1),
      });
    }
    page = await app.open({ viewport: { width: 1280, height: 720 } });
    // Listen for file choosers from the start: Playwright turns the interception on without
    // waiting for it, so a listener added just before a key press can miss the dialog (the
    // race puppeteer#6040 describes), and the headless dialog then opens unseen.
    nextChooser = new Promise((resolve) => page.once('filechooser', resolve));
    await app.useSandboxProfile();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('moves between views with Tab and Enter, a focus ring showing on the button', async () => {
    await tabTo('button:Deliver');
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(ring.style).not.toBe('none');
    expect(ring.width).toBeGreaterThanOrEqual(2);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Deliver');
    await page.screenshot({ path: await artifactPath('keyboard-focus-ring.png') });
    await tabTo('button:Settings');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Settings');
    await tabTo('button:Library', true);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Library');
  });

  it('adds a folder from the keyboard', async () => {
    await tabTo('input:Add folder…');
    await page.keyboard.press('Space');
    const picker = await Promise.race([
      nextChooser,
      new Promise<never>((_, reject) => setTimeout(reject, 15_000)),
    ]).catch(async () => {
      throw new Error(`Space opened no file chooser; the focus is on ${await focused()}`);
    });
    await picker.setFiles(album);
    await page.getByTestId('library-summary').getByText('2 tracks').waitFor();
    await page.getByTestId('read-progress').waitFor({ state: 'detached' });
  });

  it('edits a cell in the grid and commits it', async () => {
    await tabTo('div:Tracks');
    const grid = page.getByTestId('track-grid');
    const activeColumn = async () => {
      const id = await grid.getAttribute('aria-activedescendant');
      return id ? page.locator(`#${id}`).getAttribute('data-column') : null;
    };
    for (let i = 0; i < 10 && (await activeColumn()) !== 'title'; i++) {
      await page.keyboard.press('ArrowRight');
    }
    expect(await activeColumn()).toBe('title');
    await page.keyboard.press('F2');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Opening (Live)');
    await page.keyboard.press('Enter');
    await expect.poll(() => text('Night Shift/01 Opening.mp3', 'title')).toBe('Opening (Live)');
  });

  it('collapses the inspector and opens it again', async () => {
    // Shift+Tab walks back across the row's cells (as in a spreadsheet), then leaves the grid
    // for the toolbar before it.
    await tabTo('button:Inspector', true);
    await page.getByTestId('inspector').waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('inspector').waitFor({ state: 'detached' });
    const toggle = page.getByRole('button', { name: 'Inspector' });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await page.keyboard.press('Space');
    await page.getByTestId('inspector').waitFor();
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
  });

  it('asks before Clear: Escape keeps the library, Clear empties it, Ctrl+Z brings it back', async () => {
    await tabTo('button:Clear…', true);
    await page.keyboard.press('Enter');
    const question = page.getByRole('group', { name: 'Clear the library?' });
    await question.waitFor();
    // The safe answer has the focus.
    await expect(focused()).resolves.toBe('button:Keep');
    await page.screenshot({ path: await artifactPath('keyboard-clear-question.png') });
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    await expect(page.getByTestId('library-summary').textContent()).resolves.toContain('2 tracks');
    await expect(focused()).resolves.toBe('button:Clear…');

    await page.keyboard.press('Enter');
    await question.waitFor();
    await page.keyboard.press('Shift+Tab');
    await expect(focused()).resolves.toBe('button:Clear');
    await page.keyboard.press('Enter');
    await row('01 Opening.mp3').waitFor({ state: 'detached' });
    await expect(focused()).resolves.toMatch(/^button:Undo/);
    await page.keyboard.press('ControlOrMeta+Z');
    await expect.poll(() => text('Night Shift/01 Opening.mp3', 'title')).toBe('Opening (Live)');
  });
});
