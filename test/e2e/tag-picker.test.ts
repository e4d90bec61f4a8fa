/**
 * The tag picker on several tracks at once, through the real UI in Chromium via the browser
 * host and the embedded sandbox's lexicology: "melan" + Enter adds the lexicology's only match
 * (Melancholic, a Mood) to every selected track — never a free "Genre: melan" — and a free tag,
 * added on purpose, is marked as one.
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
  if (process.env.CI === 'true') throw new Error(`tag picker e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the tag picker e2e test: missing ${missing.join(', ')}`);
}

const files = ['01 Grey.mp3', '02 Rain.mp3', '03 Hush.mp3'];

describe.skipIf(missing.length > 0)('the tag picker in Chromium', () => {
  let app: E2eApp;
  let page: Page;

  const row = (file: string): Locator =>
    page.locator('[role="row"][data-row-id]').filter({ hasText: file });
  const tags = async (file: string) =>
    ((await row(file).locator('[data-column="customer_tags"]').textContent()) ?? '').trim();

  beforeAll(async () => {
    app = await E2eApp.create('courier-tag-picker-e2e-');
    const dir = join(app.masters, 'Moods');
    await mkdir(dir, { recursive: true });
    for (const [i, name] of files.entries()) {
      await makeTaggedAudio('mp3', join(dir, name), 'id3v2.4', {
        title: name.slice(3, -4),
        artists: ['Mara Quist'],
        album: 'Moods',
        isrc: `GBAYE260020${i}`,
        track: String(i + 1),
      });
    }
    page = await app.open({ viewport: { width: 1400, height: 900 } });
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(dir, files.length);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('adds the only lexicology match on Enter to every selected track', async () => {
    await row(files[0]!).locator('[data-column="title"]').click();
    await row(files[2]!)
      .locator('[data-column="title"]')
      .click({ modifiers: ['Shift'] });
    const inspector = page.getByTestId('inspector');
    await inspector.getByText('3 tracks selected').waitFor();
    const picker = inspector.getByRole('combobox', { name: 'Add customer tag' });
    await picker.click();
    await picker.pressSequentially('melan');
    await inspector.getByTestId('tag-picker-status').getByText('1 matching tag').waitFor();
    await page.screenshot({ path: await artifactPath('tag-picker-melan.png') });
    await picker.press('Enter');
    for (const file of files) await expect.poll(() => tags(file)).toBe('Mood: Melancholic');
    expect(await page.getByText('Genre: melan').count()).toBe(0);
  });

  it('adds typed text as a free tag only when chosen, and marks it free', async () => {
    const inspector = page.getByTestId('inspector');
    const picker = inspector.getByRole('combobox', { name: 'Add customer tag' });
    await picker.click();
    await picker.pressSequentially('Harbour Nights');
    // Nothing in the lexicology is like it: its option is the free tag, chosen with Enter.
    await inspector.getByRole('option', { name: /Harbour Nights/ }).waitFor();
    await picker.press('Enter');
    for (const file of files) {
      await expect.poll(() => tags(file)).toBe('Mood: Melancholic; Genre: Harbour Nights');
    }
    const free = inspector.getByRole('button', {
      name: 'Remove customer tag Genre: Harbour Nights',
    });
    await free.waitFor();
    await expect(free.locator('xpath=..').textContent()).resolves.toContain('free');
    const listed = inspector.getByRole('button', { name: 'Remove customer tag Mood: Melancholic' });
    await expect(listed.locator('xpath=..').textContent()).resolves.not.toContain('free');
    await page.screenshot({ path: await artifactPath('tag-picker-free.png') });
  });
});
