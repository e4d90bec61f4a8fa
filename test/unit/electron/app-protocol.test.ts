import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  APP_SCHEME,
  APP_URL,
  appScheme,
  createAppProtocolHandler,
} from '../../../src-main/electron/app-protocol.js';
import { isAppUrl } from '../../../src-main/electron/security.js';

describe('the app:// scheme', () => {
  let home: string;
  let serve: (request: Request) => Promise<Response>;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-app-scheme-'));
    const renderer = join(home, 'dist', 'renderer');
    await mkdir(join(renderer, 'assets'), { recursive: true });
    await writeFile(join(renderer, 'index.html'), '<!doctype html><title>Courier</title>');
    await writeFile(join(renderer, 'assets', 'tag-worker-abc.js'), 'self.onmessage = () => {};');
    await writeFile(join(home, 'dist', 'secret.txt'), 'outside the build');
    serve = createAppProtocolHandler(renderer);
  });

  afterAll(() => rm(home, { recursive: true, force: true }));

  const get = (url: string, method = 'GET') => serve(new Request(url, { method }));

  it('loads the window from app://courier/index.html, a standard and secure scheme', () => {
    expect(APP_URL).toBe('app://courier/index.html');
    expect(appScheme).toEqual({
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true },
    });
  });

  it('serves the page and its module scripts with their types, never sniffed', async () => {
    const page = await get(APP_URL);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('<title>Courier</title>');
    const worker = await get('app://courier/assets/tag-worker-abc.js');
    expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await worker.text()).toContain('onmessage');
  });

  it.each([
    'app://courier/..%2fsecret.txt',
    'app://courier/%2e%2e/secret.txt',
    'app://courier/assets/..%2f..%2fsecret.txt',
    'app://courier/missing.js',
    'app://courier/%E0%A4%A',
    'app://other/index.html',
  ])('answers 404 for %s', async (url) => {
    expect((await get(url)).status).toBe(404);
  });

  it('answers only reads', async () => {
    expect((await get(APP_URL, 'POST')).status).toBe(405);
  });

  it('trusts only its own page: not the file:// copy, not another host', () => {
    expect(isAppUrl(`${APP_URL}#settings`, APP_URL)).toBe(true);
    expect(isAppUrl('file:///opt/courier/dist/renderer/index.html', APP_URL)).toBe(false);
    expect(isAppUrl('app://other/index.html', APP_URL)).toBe(false);
    expect(isAppUrl('app://courier/assets/tag-worker-abc.js', APP_URL)).toBe(false);
  });
});
