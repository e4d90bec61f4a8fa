/**
 * Profiles as a new user meets them, through the real UI in Chromium via the browser host: the
 * Sandbox is active from the first launch; the first profile of the user's own replaces it as
 * active, and Deliver says plainly when that profile lists no catalog instead of an empty list;
 * a second profile saved later does not take over from the one in use.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

describe('profiles in Chromium', () => {
  let app: E2eApp;
  let page: Page;

  const active = async () =>
    ((await page.getByTestId('active-profile').textContent()) ?? '').replace(/\s+/g, ' ').trim();
  const shot = async (name: string) =>
    page.screenshot({ path: await artifactPath(`profiles-${name}.png`) });

  async function saveProfile(name: string, base: string) {
    const form = page.getByRole('form', { name: 'Profile' });
    await form.getByLabel('Name', { exact: true }).fill(name);
    await form.getByLabel('API base URL').fill(base);
    await form.getByLabel('Client id').fill('label-client');
    await form.getByLabel('Bucket name').fill('label-deliveries');
    await form.getByLabel('Region').fill('eu-west-1');
    await form.getByLabel('Access key id').fill('AKIAEXAMPLE0001');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: name })
      .waitFor()
      .catch(async (error: unknown) => {
        await shot('failed');
        throw error;
      });
  }

  beforeAll(async () => {
    app = await E2eApp.create('courier-profiles-e2e-');
    page = await app.open({ viewport: { width: 1400, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('makes the first profile of the user’s own active, and Deliver says it lists no catalog', async () => {
    await app.useSandboxProfile();
    await app.nav('Connect').click();
    await page.getByRole('button', { name: 'Connect your account' }).first().click();
    await saveProfile('Label Live', 'https://api.label.example');
    await expect.poll(active).toContain('Label Live');
    await expect(page.getByTestId('sandbox-banner').count()).resolves.toBe(0);

    await app.nav('Deliver').click();
    await page
      .getByText('Profile Label Live lists no catalogs, so there is nowhere to deliver.')
      .waitFor();
    await shot('01-no-catalogs');
  });

  it('keeps the profile in use when another one is saved', async () => {
    await app.nav('Connect').click();
    await page.getByRole('button', { name: 'Add profile' }).click();
    await saveProfile('Label Staging', 'https://staging.label.example');
    await expect.poll(active).toContain('Label Live');
    expect(await active()).not.toContain('Label Staging');
    await shot('02-second-saved');
  });
});
