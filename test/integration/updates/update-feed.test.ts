import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fetchReleaseFeed } from '../../../src-main/core/updates/fetch-feed.js';
import { FeedError } from '../../../src-main/core/updates/release-feed.js';
import { skippedVersionFile } from '../../../src-main/core/updates/skipped-version.js';
import {
  type UpdateInstaller,
  UpdateService,
} from '../../../src-main/core/updates/update-service.js';
import type { UpdateState } from '../../../src-main/core/updates/update-state.js';

const FEEDS = new URL('./feeds/', import.meta.url);

/**
 * A release feed server on loopback, serving the yml files under feeds/ the way a static host
 * serves what `npm run dist` wrote: /<folder>/<file>. /slow/ answers after `SLOW_MS`; anything
 * not there is a 404. It counts the requests, so a test can tell nothing else was fetched.
 */
const SLOW_MS = 1_500;
let server: Server;
let base: string;
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const [, folder, file] = path.split('/');
    if (folder === 'slow') {
      setTimeout(() => response.writeHead(200).end('version: 9.9.9\n'), SLOW_MS);
      return;
    }
    readFile(new URL(`${folder}/${file}`, FEEDS))
      .then((body) => response.writeHead(200, { 'content-type': 'text/yaml' }).end(body))
      .catch(() => response.writeHead(404, 'Not Found').end('Not Found'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('fetchReleaseFeed()', () => {
  it('reads a feed electron-builder wrote: version, date, notes as text, files with sha512', async () => {
    const feed = await fetchReleaseFeed(`${base}/newer/latest-linux.yml`);
    expect(feed.version).toBe('0.2.0');
    expect(feed.releaseDate).toBe('2025-11-20T10:12:33.512Z');
    expect(feed.releaseNotes).toBe(
      [
        '## Catalog Courier 0.2.0',
        '',
        '- Deliveries resume after a proxy drops the connection.',
        '- Settings shows when an update is available.',
      ].join('\n'),
    );
    expect(feed.files.map((file) => file.url)).toEqual([
      'Catalog-Courier-0.2.0.AppImage',
      'catalog-courier_0.2.0_amd64.deb',
    ]);
    expect(feed.files[0]!.size).toBe(118932480);
  });

  it('says a 404 means nothing is published there yet', async () => {
    const url = `${base}/nothing/latest-linux.yml`;
    await expect(fetchReleaseFeed(url)).rejects.toThrow(
      new FeedError(
        `The release feed at ${url} answered 404 Not Found: no release is published there yet.`,
      ),
    );
  });

  it('turns a page that is not a feed (a captive portal) into one line', async () => {
    const url = `${base}/malformed/latest-linux.yml`;
    const error = await fetchReleaseFeed(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toMatch(new RegExp(`^The release feed at ${url} `));
    expect((error as Error).message).not.toContain('\n');
  });

  it('gives up on a feed that does not answer in time', async () => {
    const url = `${base}/slow/latest-linux.yml`;
    const started = Date.now();
    await expect(fetchReleaseFeed(url, { timeoutMs: 300 })).rejects.toThrow(
      `The release feed at ${url} did not answer within 0.3 s: try again later.`,
    );
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
  });

  it('says when nothing answers at the address', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/latest-linux.yml`;
    await expect(fetchReleaseFeed(url)).rejects.toThrow(
      `Could not reach the release feed at ${url} (connection refused): check the network connection and try again.`,
    );
  });

  it('fetches through the fetch it is given (the seam for the proxy)', async () => {
    const seen: string[] = [];
    const feed = await fetchReleaseFeed(`${base}/newer/latest-mac.yml`, {
      fetch: (url, init) => {
        seen.push(url);
        return fetch(url, init);
      },
    });
    expect(seen).toEqual([`${base}/newer/latest-mac.yml`]);
    expect(feed.files.map((file) => file.url)).toContain('Catalog Courier-0.2.0-arm64.dmg');
  });
});

/** An installer that records what it was asked, and downloads in four steps. */
function recordingInstaller() {
  const asked: string[] = [];
  const installer: UpdateInstaller = {
    async download(version, onProgress) {
      asked.push(`download ${version}`);
      for (const percent of [12.5, 40, 40.2, 100]) onProgress(percent);
    },
    install() {
      asked.push('install');
    },
  };
  return { installer, asked };
}

async function service(folder: string, options: { version?: string; platform?: string } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'courier-updates-'));
  const { installer, asked } = recordingInstaller();
  const states: UpdateState[] = [];
  const updates = new UpdateService({
    config: { provider: 'generic', url: `${base}/${folder}` },
    currentVersion: options.version ?? '0.1.0',
    platform: options.platform ?? 'linux',
    arch: 'x64',
    installer,
    skipped: skippedVersionFile(dataDir),
    timeoutMs: 300,
    now: () => new Date('2025-11-21T12:00:00.000Z'),
  });
  updates.subscribe((state) => states.push(state));
  return { updates, asked, states, dataDir };
}

describe('UpdateService', () => {
  it('offers a newer release with its notes, and downloads nothing until asked', async () => {
    const { updates, asked } = await service('newer');
    const state = await updates.check({ manual: false });
    expect(state).toMatchObject({
      phase: 'available',
      later: false,
      offer: { version: '0.2.0', releaseDate: '2025-11-20T10:12:33.512Z' },
    });
    expect(state.phase === 'available' && state.offer.notes).toContain('Deliveries resume');
    expect(asked).toEqual([]);
  });

  it('downloads on the user’s word, reports whole percents, then installs on it', async () => {
    const { updates, asked, states } = await service('newer');
    await updates.check({ manual: false });
    await updates.download();
    expect(states.map((s) => (s.phase === 'downloading' ? `${s.percent}%` : s.phase))).toEqual([
      'checking',
      'available',
      '0%',
      '12%',
      '40%',
      '100%',
      'ready',
    ]);
    expect(asked).toEqual(['download 0.2.0']);
    updates.install();
    expect(asked).toEqual(['download 0.2.0', 'install']);
  });

  it.each([
    ['same', '0.1.0'],
    ['older', '0.0.9'],
  ])(
    'is up to date when the feed holds the %s version, never offering a downgrade',
    async (folder, latest) => {
      const { updates } = await service(folder);
      expect(await updates.check({ manual: true })).toEqual({
        phase: 'up-to-date',
        latest,
        checkedAt: '2025-11-21T12:00:00.000Z',
      });
      await updates.download();
      expect(updates.state.phase).toBe('up-to-date');
    },
  );

  it('offers a beta to a beta build, not to a release build', async () => {
    const beta = await service('newer', { version: '0.2.0-alpha.3', platform: 'win32' });
    expect(await beta.updates.check({ manual: false })).toMatchObject({
      phase: 'available',
      offer: { version: '0.2.0-beta.1' },
    });
    const stable = await service('newer', { version: '0.1.0', platform: 'win32' });
    expect((await stable.updates.check({ manual: false })).phase).toBe('up-to-date');
  });

  it('stays quiet about a version put off with Later, across restarts, until a newer one', async () => {
    const first = await service('newer');
    await first.updates.check({ manual: false });
    await first.updates.later();
    expect(first.updates.state).toMatchObject({ phase: 'available', later: true });

    // The next start, same data folder: the start-up check keeps quiet about 0.2.0…
    const { installer } = recordingInstaller();
    const restarted = new UpdateService({
      config: { provider: 'generic', url: `${base}/newer` },
      currentVersion: '0.1.0',
      platform: 'linux',
      arch: 'x64',
      installer,
      skipped: skippedVersionFile(first.dataDir),
    });
    expect(await restarted.check({ manual: false })).toMatchObject({ later: true });
    // …but "Check for updates…" shows it again.
    expect(await restarted.check({ manual: true })).toMatchObject({ later: false });
  });

  it('tells a failed check in one line and can check again', async () => {
    const { updates } = await service('nothing');
    const state = await updates.check({ manual: true });
    expect(state).toEqual({
      phase: 'failed',
      during: 'check',
      reason: `The release feed at ${base}/nothing/latest-linux.yml answered 404 Not Found: no release is published there yet.`,
    });
    expect((await updates.check({ manual: true })).phase).toBe('failed');
  });

  it('fails a slow feed by its time limit', async () => {
    const { updates } = await service('slow');
    expect(await updates.check({ manual: false })).toMatchObject({
      phase: 'failed',
      reason: expect.stringContaining('did not answer within 0.3 s'),
    });
  });

  it('fetches nothing at all in a build without a feed', async () => {
    const before = requests.length;
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-updates-'));
    const updates = new UpdateService({
      config: null,
      currentVersion: '0.1.0',
      platform: 'linux',
      arch: 'x64',
      installer: recordingInstaller().installer,
      skipped: skippedVersionFile(dataDir),
    });
    expect(await updates.check({ manual: true })).toEqual({
      phase: 'not-configured',
      message: 'Updates: not configured in this build.',
    });
    expect(requests.length).toBe(before);
  });

  it('keeps the offer when a download fails, so the user can try again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-updates-'));
    let attempts = 0;
    const updates = new UpdateService({
      config: { provider: 'generic', url: `${base}/newer/` },
      currentVersion: '0.1.0',
      platform: 'darwin',
      arch: 'arm64',
      installer: {
        async download() {
          if (++attempts === 1) throw new Error('sha512 checksum mismatch');
        },
        install() {},
      },
      skipped: skippedVersionFile(dataDir),
    });
    await updates.check({ manual: false });
    expect(await updates.download()).toEqual({
      phase: 'failed',
      during: 'download',
      reason:
        'Catalog Courier 0.2.0 could not be downloaded (sha512 checksum mismatch): try again, or download it from the release page.',
      offer: expect.objectContaining({ version: '0.2.0' }),
    });
    expect((await updates.download()).phase).toBe('ready');
  });
});
