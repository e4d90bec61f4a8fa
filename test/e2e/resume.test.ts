/**
 * A delivery that outlives its process, through the real UI in Chromium and the browser host:
 * the host is killed (SIGKILL) in the middle of the upload; a new host on the same data folder
 * offers the interrupted delivery in Transfers, Resume takes it to done, and the sandbox holds
 * every entry.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SettingsStore } from '../../src-main/core/settings/settings-store.js';
import { makeAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping the resume e2e: missing ${missing.join(', ')}`);

/** Six ~1.4 MB masters: at 256 KiB/s, one at a time, the upload takes half a minute. */
const names = Array.from({ length: 6 }, (_, i) => `RESUME-00${i + 1}.wav`);

describe.skipIf(missing.length > 0)('resuming a delivery after the host was killed', () => {
  let app: E2eApp;
  let page: Page;

  /** The delivery records on disk (their main file, without the heavy parts). */
  async function records(): Promise<Array<{ id: string; state: string; folder: string }>> {
    const dir = join(app.data, 'deliveries');
    const files = (await readdir(dir)).filter(
      (n) => n.endsWith('.json') && !n.endsWith('.parts.json'),
    );
    return Promise.all(files.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
  }

  beforeAll(async () => {
    app = await E2eApp.create('courier-resume-e2e-');
    for (const name of names)
      await makeAudio('wav', join(app.masters, 'Session', name), { seconds: 90 });
    // Slow and one file at a time, so the kill lands with some files up and others not.
    await new SettingsStore(app.data).set({ concurrency: 1, bandwidthLimitKiB: 256 });
    page = await app.open({ viewport: { width: 1400, height: 860 } });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('offers the interrupted delivery after a restart and resumes it to done', async () => {
    await app.useSandboxProfile();
    await app.nav('Library').click();
    await app.addFolder(join(app.masters, 'Session'), names.length);
    await app.nav('Deliver').click();
    await page.getByLabel('audio only').check();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('preflight').getByText('Pre-flight — ready').waitFor();
    await page.getByTestId('deliver-now').click();

    // Kill the host once the first file is up and before the last one is.
    const transfer = page.getByTestId('transfer').first();
    const overall = transfer.getByRole('progressbar', { name: 'Overall progress' });
    await expect
      .poll(async () => Number(await overall.getAttribute('aria-valuenow')), {
        timeout: 60_000,
        interval: 100,
      })
      .toBeGreaterThan(0);
    await app.crashHost();
    const [killed] = await records();
    expect(killed?.state).toBe('uploading');

    // A new host on the same data folder, at full speed.
    await new SettingsStore(app.data).set({ concurrency: 4, bandwidthLimitKiB: 0 });
    await app.openHost();
    // The new host listens on another port (another origin), and still works with the profile
    // chosen before the crash: main keeps it.
    await page.getByTestId('active-profile').getByText('Sandbox').waitFor();
    await app.nav('Transfers').click();
    const offered = page.getByRole('region', { name: 'Unfinished deliveries' });
    await offered.getByText(killed!.folder).waitFor();
    await page.screenshot({ path: await artifactPath('journey-17-resume-offered.png') });

    await offered.getByRole('button', { name: 'Resume' }).click();
    const resumed = page.getByTestId('transfer').first();
    await resumed.getByTestId('transfer-state').getByText('done').waitFor({ timeout: 90_000 });
    await expect(records()).resolves.toEqual([
      expect.objectContaining({ id: killed!.id, state: 'accepted', runs: 2 }),
    ]);

    const { catalogs } = await app.sandbox();
    const entries = await app.inspect(`/sandbox/catalogs/${catalogs[0]!.id}/entries`);
    // audio_only: the file name is the outer_id.
    expect(entries.map((e) => e.outer_id).sort()).toEqual([...names].sort());
  }, 300_000);
});
