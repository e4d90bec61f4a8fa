/**
 * The app's installer for core's UpdateService: electron-updater (Squirrel.Mac, NSIS, AppImage,
 * deb), told never to act on its own. Core decides what to offer from the feed; this only
 * downloads the offered release (electron-updater checks its sha512 and, on macOS and Windows,
 * its signature) and installs it, each when the user says so.
 */
import type { AppUpdater, ProgressInfo } from 'electron-updater';

import type { Logger } from '../core/log.js';
import { skippedVersionFile } from '../core/updates/skipped-version.js';
import { readUpdateConfig, type UpdateConfig } from '../core/updates/update-config.js';
import { type UpdateInstaller, UpdateService } from '../core/updates/update-service.js';

type Updater = Pick<
  AppUpdater,
  | 'autoDownload'
  | 'autoInstallOnAppQuit'
  | 'logger'
  | 'setFeedURL'
  | 'checkForUpdates'
  | 'downloadUpdate'
  | 'quitAndInstall'
  | 'on'
  | 'off'
>;

/** Configures electron-updater for the build's feed and wraps it as core's installer. */
export function createAppInstaller(
  updater: Updater,
  config: UpdateConfig,
  log: (message: string) => void,
): UpdateInstaller {
  updater.autoDownload = false;
  updater.autoInstallOnAppQuit = false;
  updater.logger = { info: log, warn: log, error: log, debug: () => undefined };
  // The same feed app-update.yml names, as core read it: one source for both.
  // The S3 entry as electron-builder names it; `url` is core's reading of where it points.
  updater.setFeedURL(
    config.provider === 'generic'
      ? config
      : {
          provider: 's3',
          bucket: config.bucket,
          ...(config.region ? { region: config.region } : {}),
          ...(config.path ? { path: config.path } : {}),
          ...(config.endpoint ? { endpoint: config.endpoint } : {}),
        },
  );
  return {
    async download(expectedVersion, onProgress) {
      // electron-updater downloads only what its own last check found.
      const result = await updater.checkForUpdates();
      const found = result?.isUpdateAvailable ? result.updateInfo.version : null;
      if (found !== expectedVersion) {
        throw new Error(
          found ? `the feed now offers ${found} instead` : 'the feed no longer offers it',
        );
      }
      const progress = (info: ProgressInfo) => onProgress(info.percent);
      updater.on('download-progress', progress);
      try {
        await updater.downloadUpdate();
      } finally {
        updater.off('download-progress', progress);
      }
    },
    install() {
      // Not silent (Windows shows its installer), and the app runs again afterwards.
      updater.quitAndInstall(false, true);
    },
  };
}

/**
 * The app's UpdateService: the feed electron-builder wrote into the resources (none in an
 * unpackaged run), electron-updater as its installer. `updater` is called only when the build
 * has a feed, since electron-updater's instance reads the app's files when it is created.
 */
export function createAppUpdates(options: {
  resourcesDir: string | null;
  version: string;
  dataDir: string;
  log: Pick<Logger, 'log'>;
  updater: () => Updater;
}): UpdateService {
  const { log } = options;
  let config: UpdateConfig | null = null;
  try {
    config = readUpdateConfig(options.resourcesDir);
  } catch (error) {
    void log.log('error', 'Updates: the build’s update settings are unusable', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const installer: UpdateInstaller = config
    ? createAppInstaller(
        options.updater(),
        config,
        (message) => void log.log('info', 'electron-updater', { message }),
      )
    : {
        download: async () => {
          throw new Error('this build has no release feed');
        },
        install: () => undefined,
      };
  return new UpdateService({
    config,
    currentVersion: options.version,
    platform: process.platform,
    arch: process.arch,
    installer,
    skipped: skippedVersionFile(options.dataDir),
    onLog: (level, message, fields) =>
      void log.log(level === 'warning' ? 'warn' : level, message, fields),
  });
}
