/**
 * A delivery that outlives its process, through the real UI in Chromium and the browser host:
 * the host is killed (SIGKILL) in the middle of the upload; a new host on the same data folder
 * offers the interrupted delivery in Transfers, Resume takes it to done, and the sandbox holds
 * every entry.
 */
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SettingsStore } from '../../src-main/core/settings/settings-store.js';
import { makeAudio, missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath, launchChromium } from '../support/chromium.js';
import { startWebHostProcess, type WebHostProcess } from '../support/web-host-process.js';

const missing = missingFixtureTools();
if (missing.length > 0) console.warn(`skipping the resume e2e: missing ${missing.join(', ')}`);

/** Six ~1.4 MB masters: at 256 KiB/s, one at a time, the upload takes half a minute. */
const names = Array.from({ length: 6 }, (_, i) => `RESUME-00${i + 1}.wav`);

describe.skipIf(missing.length > 0)('resuming a delivery after the host was killed', () => {
  let home: string;
  let data: string;
  let masters: string;
  let host: WebHostProcess | undefined;
  let browser: Browser;
  let page: Page;

  const nav = (label: string) =>
    page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: label, exact: true });

  /** Starts a browser host on the data folder and opens it in the page. */
  async function openHost(): Promise<void> {
    host = await startWebHostProcess(['--port', '0', '--root', masters], { COURIER_HOME: data });
    await page.goto(host.url);
    await page.getByTestId('connection').getByText('Browser host').waitFor();
  }

  /** The delivery records on disk (their main file, without the heavy parts). */
  async function records(): Promise<Array<{ id: string; state: string; folder: string }>> {
    const dir = join(data, 'deliveries');
    const files = (await readdir(dir)).filter(
      (n) => n.endsWith('.json') && !n.endsWith('.parts.json'),
    );
    return Promise.all(files.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
  }

  /** A sandbox-only inspection route, with a token of the running embedded sandbox. */
  async function inspect(path: string): Promise<Array<Record<string, unknown>>> {
    const running = JSON.parse(await readFile(join(data, 'sandbox', 'running.json'), 'utf8')) as {
      info: { base_url: string; client_id: string; client_secret: string };
    };
    const { base_url, client_id, client_secret } = running.info;
    const tokenAnswer = await fetch(`${base_url}/oauth/access_tokens/client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id, client_secret }),
    });
    const token = ((await tokenAnswer.json()) as { data: { token: string } }).data.token;
    const answer = await fetch(`${base_url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await answer.json()) as { data: Array<Record<string, unknown>> }).data;
  }

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-resume-e2e-'));
    data = join(home, 'data');
    masters = join(home, 'masters');
    for (const name of names)
      await makeAudio('wav', join(masters, 'Session', name), { seconds: 90 });
    // Slow and one file at a time, so the kill lands with some files up and others not.
    await new SettingsStore(data).set({ concurrency: 1, bandwidthLimitKiB: 256 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    await openHost();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('offers the interrupted delivery after a restart and resumes it to done', async () => {
    await nav('Connect').click();
    await page.getByTestId('try-sandbox').click();
    await page.getByTestId('active-profile').getByText('Sandbox').waitFor();
    await nav('Library').click();
    await page.getByTestId('add-folder').setInputFiles(join(masters, 'Session'));
    await page.getByTestId('library-summary').getByText('6 tracks').waitFor();
    await page.getByTestId('read-progress').waitFor({ state: 'detached' });
    await nav('Deliver').click();
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
    host!.process.kill('SIGKILL');
    await once(host!.process, 'exit');
    host = undefined;
    const [killed] = await records();
    expect(killed?.state).toBe('uploading');

    // A new host on the same data folder, at full speed.
    await new SettingsStore(data).set({ concurrency: 4, bandwidthLimitKiB: 0 });
    await openHost();
    // The new host listens on another port (another origin), and still works with the profile
    // chosen before the crash: main keeps it.
    await page.getByTestId('active-profile').getByText('Sandbox').waitFor();
    await nav('Transfers').click();
    const offered = page.getByRole('region', { name: 'Unfinished deliveries' });
    await offered.getByText(killed!.folder).waitFor();
    await page.screenshot({ path: await artifactPath('journey-17-resume-offered.png') });

    await offered.getByRole('button', { name: 'Resume' }).click();
    const resumed = page.getByTestId('transfer').first();
    await resumed.getByTestId('transfer-state').getByText('done').waitFor({ timeout: 90_000 });
    await expect(records()).resolves.toEqual([
      expect.objectContaining({ id: killed!.id, state: 'accepted', runs: 2 }),
    ]);

    const running = JSON.parse(await readFile(join(data, 'sandbox', 'running.json'), 'utf8')) as {
      info: { catalogs: Array<{ id: string }> };
    };
    const entries = await inspect(`/sandbox/catalogs/${running.info.catalogs[0]!.id}/entries`);
    // audio_only: the file name is the outer_id.
    expect(entries.map((e) => e.outer_id).sort()).toEqual([...names].sort());
  }, 300_000);
});
