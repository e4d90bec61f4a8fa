import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium: playwright-core drives it, and never downloads a browser of its own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where e2e runs leave screenshots and logs (ignored by git). */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts/', import.meta.url));

/** Launches headless Chromium with the flags this closed network needs. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The path for an artifact of this run, creating its folder. */
export async function artifactPath(name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, name);
}
