/**
 * Updates as the browser host shows them: the Settings view's Updates section says updates are
 * the desktop app's, offers no check, and no banner appears. (The desktop app's prompt is tested
 * in the renderer tier and its feed against a real local server: test/integration/updates.)
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UPDATES_ELSEWHERE } from '../../src-main/core/updates/update-state.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

describe('updates in the browser host', () => {
  let app: E2eApp;
  let page: Page;

  beforeAll(async () => {
    app = await E2eApp.create('courier-updates-e2e-');
    page = await app.open({ viewport: { width: 1280, height: 720 } });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("says updates are the desktop app's, with no check to press and no banner", async () => {
    await app.nav('Settings').click();
    const section = page.getByRole('region', { name: 'Updates' });
    await section.getByText(UPDATES_ELSEWHERE).waitFor();
    await expect(section.getByRole('button').count()).resolves.toBe(0);
    await expect(page.getByTestId('update-banner').count()).resolves.toBe(0);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: await artifactPath('updates-browser-host.png') });
  });
});
