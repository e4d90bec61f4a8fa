import { EventEmitter } from 'node:events';

import { describe, expect, it } from 'vitest';

import { createAppInstaller } from '../../../src-main/electron/app-updater.js';

/** electron-updater's autoUpdater, played: it finds `version` and downloads in two steps. */
function fakeUpdater(version: string) {
  const calls: string[] = [];
  const emitter = new EventEmitter();
  const updater = {
    autoDownload: true,
    autoInstallOnAppQuit: true,
    logger: null as unknown,
    setFeedURL: (options: unknown) => calls.push(`feed ${JSON.stringify(options)}`),
    checkForUpdates: async () => {
      calls.push('check');
      return { isUpdateAvailable: true, updateInfo: { version } };
    },
    downloadUpdate: async () => {
      calls.push('download');
      emitter.emit('download-progress', { percent: 50 });
      emitter.emit('download-progress', { percent: 100 });
      return [];
    },
    quitAndInstall: (silent: boolean, runAfter: boolean) =>
      calls.push(`quitAndInstall ${silent} ${runAfter}`),
    on: (event: string, listener: (...args: unknown[]) => void) => emitter.on(event, listener),
    off: (event: string, listener: (...args: unknown[]) => void) => emitter.off(event, listener),
  };
  return { updater, calls, emitter };
}

const feed = { provider: 'generic' as const, url: 'https://updates.example.com/courier' };

describe('createAppInstaller()', () => {
  it('turns off everything electron-updater would do on its own and uses core’s feed', () => {
    const { updater, calls } = fakeUpdater('0.2.0');
    createAppInstaller(updater as never, feed, () => undefined);
    expect(updater.autoDownload).toBe(false);
    expect(updater.autoInstallOnAppQuit).toBe(false);
    expect(calls).toEqual([`feed ${JSON.stringify(feed)}`]);
  });

  it('downloads the offered version with its progress, and installs on request', async () => {
    const { updater, calls, emitter } = fakeUpdater('0.2.0');
    const installer = createAppInstaller(updater as never, feed, () => undefined);
    const seen: number[] = [];
    await installer.download('0.2.0', (percent) => seen.push(percent));
    expect(seen).toEqual([50, 100]);
    expect(emitter.listenerCount('download-progress')).toBe(0);
    installer.install();
    expect(calls.slice(1)).toEqual(['check', 'download', 'quitAndInstall false true']);
  });

  it('refuses to download a version other than the one the user accepted', async () => {
    const { updater, calls } = fakeUpdater('0.3.0');
    const installer = createAppInstaller(updater as never, feed, () => undefined);
    await expect(installer.download('0.2.0', () => undefined)).rejects.toThrow(
      'the feed now offers 0.3.0 instead',
    );
    expect(calls).not.toContain('download');
  });
});
