/**
 * Transfers a user can believe, through the real UI in Chromium via the browser host and the
 * embedded sandbox, with the app's own bandwidth limit so a delivery takes seconds: the first
 * ETA (shown by a quarter sent) is within 20 % of the time the upload then takes; Pause stops
 * the bytes within about a second (the bucket runs in the host's process, so its disk writes
 * are the bytes received) and says which parts are finishing; files read done once confirmed.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { missingFixtureTools } from '../support/audio-fixtures.js';
import { artifactPath } from '../support/chromium.js';
import { E2eApp } from '../support/e2e-app.js';

const missing = missingFixtureTools();
if (missing.length > 0) {
  if (process.env.CI === 'true') throw new Error(`transfers e2e needs ${missing.join(', ')}`);
  console.warn(`Skipping the transfers e2e test: missing ${missing.join(', ')}`);
}

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** The limit set in Settings: 20 MiB then take about ten seconds. */
const LIMIT_KIB = 2048;

/** A 16-bit stereo WAV of `seconds` (about 10 MiB a minute). */
async function makeWav(path: string, seconds: number, frequency: number): Promise<void> {
  await run('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${frequency}:duration=${seconds}`,
    '-ar',
    '44100',
    '-ac',
    '2',
    '-c:a',
    'pcm_s16le',
    path,
  ]);
}

/** Bytes the process has written so far (/proc/<pid>/io wchar): disk writes of the bucket. */
async function bytesWritten(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8');
  return Number(/^wchar: (\d+)$/m.exec(io)![1]);
}

/** "1.2 MiB of 20.0 MiB" → the first figure in bytes. */
function sentOf(figures: string): number {
  const match = /([\d.]+) (B|KiB|MiB|GiB) of/.exec(figures);
  if (!match) throw new Error(`no byte figure in "${figures}"`);
  const unit = { B: 1, KiB: 1024, MiB: MiB, GiB: 1024 * MiB }[match[2] as 'B'];
  return Number(match[1]) * unit;
}

/** "2.0 MiB/s · ETA 1 min 5 s" → seconds. */
function etaOf(text: string): number | undefined {
  const match = /ETA (?:(\d+) min ?)?(?:(\d+) s)?/.exec(text);
  if (!match || (!match[1] && !match[2])) return undefined;
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}

describe.skipIf(missing.length > 0)('transfers in Chromium', () => {
  let app: E2eApp;
  let page: Page;

  const shot = async (name: string) =>
    page.screenshot({ path: await artifactPath(`transfers-${name}.png`) });
  const transfer = (): Locator => page.getByTestId('transfer').first();
  const figures = async () => (await transfer().locator('.figures').textContent()) ?? '';
  const badge = async () =>
    ((await transfer().getByTestId('transfer-state').textContent()) ?? '').trim();

  async function deliverFolder(dir: string, files: number) {
    await app.nav('Library').click();
    if ((await page.locator('[role="row"][data-row-id]').count()) > 0) await app.clearLibrary();
    await app.addFolder(dir, files);
    await app.nav('Deliver').click();
    await page.getByLabel('audio only').check();
    await page.getByRole('button', { name: 'Check' }).click();
    await page
      .getByTestId('preflight')
      .getByText('Pre-flight — ready')
      .waitFor({ timeout: 30_000 });
    const before = await page.getByTestId('transfer').count();
    await page.getByTestId('deliver-now').click();
    await expect.poll(() => page.getByTestId('transfer').count()).toBeGreaterThan(before);
  }

  beforeAll(async () => {
    app = await E2eApp.create('courier-transfers-e2e-');
    for (const [folder, tone] of [
      ['Eta', 440],
      ['Pause', 660],
    ] as const) {
      await mkdir(join(app.masters, folder), { recursive: true });
      for (const n of [1, 2]) {
        await makeWav(join(app.masters, folder, `0${n} ${folder} ${n}.wav`), 60, tone + n);
      }
    }
    page = await app.open({ viewport: { width: 1400, height: 900 } });
    await app.useSandboxProfile();
    await app.nav('Settings').click();
    const limit = page.getByLabel('Bandwidth limit (KiB/s)');
    await limit.fill(String(LIMIT_KIB));
    await limit.press('Tab');
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('gives an ETA by a quarter sent, within 20 % of the time the upload then takes', async () => {
    await deliverFolder(join(app.masters, 'Eta'), 2);
    await app.nav('Transfers').click();
    const total = 2 * 10.1 * MiB;
    // The first ETA comes after two confirmed parts and 3 s of sending: by a quarter at most.
    const etaText = async () =>
      (await transfer()
        .getByTestId('transfer-eta')
        .textContent()
        .catch(() => '')) ?? '';
    await expect
      .poll(async () => etaOf(await etaText()), { timeout: 30_000, interval: 100 })
      .toBeDefined();
    const eta = etaOf(await etaText());
    expect(sentOf(await figures()) / total).toBeLessThanOrEqual(0.25);
    const from = Date.now();
    await shot('01-eta');
    // The upload is over when every byte is confirmed (the ingest request follows).
    await expect
      .poll(async () => sentOf(await figures()), { timeout: 60_000, interval: 100 })
      .toBeGreaterThanOrEqual(total * 0.99);
    const took = (Date.now() - from) / 1000;
    expect(Math.abs(eta! - took) / took, `ETA ${eta} s, took ${took.toFixed(1)} s`).toBeLessThan(
      0.2,
    );
    await transfer().getByTestId('transfer-state').getByText('done').waitFor({ timeout: 60_000 });
    const states = await transfer()
      .getByTestId('transfer-file')
      .locator('.state')
      .allTextContents();
    expect(states.map((s) => s.trim())).toEqual(['done', 'done']);
  }, 120_000);

  it('stops sending within a second of Pause, says what is finishing, and finishes on Resume', async () => {
    await deliverFolder(join(app.masters, 'Pause'), 2);
    await app.nav('Transfers').click();
    await expect
      .poll(async () => sentOf(await figures()), { timeout: 30_000, interval: 100 })
      .toBeGreaterThan(4 * MiB);
    const pid = app.host.process.pid!;
    await transfer().getByRole('button', { name: 'Pause' }).click();
    const clicked = Date.now();
    // Pausing… names the parts still sending; they get 750 ms, then are aborted and re-sent.
    const seen = new Set<string>();
    while (!seen.has('paused') && Date.now() - clicked < 5_000) {
      seen.add(await badge());
      await page.waitForTimeout(50);
    }
    const stopped = (Date.now() - clicked) / 1000;
    expect(seen.has('paused'), `badges seen: ${[...seen].join(', ')}`).toBe(true);
    expect(stopped).toBeLessThan(1.5);
    await shot('02-paused');
    const written = await bytesWritten(pid);
    const sent = sentOf(await figures());
    await page.waitForTimeout(3_000);
    // Nothing arrives at the bucket while paused (the session and record files are a few KiB).
    expect((await bytesWritten(pid)) - written).toBeLessThan(256 * 1024);
    expect(sentOf(await figures())).toBe(sent);
    expect(await badge()).toBe('paused');

    await transfer().getByRole('button', { name: 'Resume' }).click();
    await transfer().getByTestId('transfer-state').getByText('done').waitFor({ timeout: 60_000 });
    const states = await transfer()
      .getByTestId('transfer-file')
      .locator('.state')
      .allTextContents();
    expect(states.map((s) => s.trim())).toEqual(['done', 'done']);
    await shot('03-done');
  }, 120_000);
});
