import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { releaseFeeds } from '../../../scripts/release-feed.mjs';
import { DEB_LINK, launcherPath } from '../../../src-main/electron/cli-tool.js';

interface BuilderConfig {
  appId: string;
  productName: string;
  asar: boolean;
  asarUnpack: string[];
  files: string[];
  electronFuses: Record<string, boolean>;
  mac: Platform;
  win: Platform;
  linux: Platform;
  nsis: Record<string, unknown>;
  deb: Record<string, unknown>;
  publish: Array<Record<string, string>>;
}

type Platform = Record<string, unknown> & {
  target: string[];
  extraResources?: Array<{ from: string; to: string }>;
};

const config = parse(await readFile('electron-builder.yml', 'utf8')) as BuilderConfig;
const packageJson = JSON.parse(await readFile('package.json', 'utf8')) as {
  productName: string;
  main: string;
  scripts: Record<string, string>;
};

describe('electron-builder.yml', () => {
  describe('publish (the release feed)', () => {
    it('names a generic feed and an S3 one, each from the build environment', () => {
      expect(config.publish).toEqual([
        { provider: 'generic', url: '${env.COURIER_UPDATE_URL}' },
        {
          provider: 's3',
          bucket: '${env.COURIER_UPDATE_S3_BUCKET}',
          region: '${env.COURIER_UPDATE_S3_REGION}',
        },
      ]);
    });

    it('gives a build the feed whose variables are set, and none when none are', () => {
      const env = { COURIER_UPDATE_URL: 'https://updates.example.com/courier' };
      expect(releaseFeeds(config.publish, env)).toEqual([config.publish[0]]);
      expect(
        releaseFeeds(config.publish, {
          COURIER_UPDATE_S3_BUCKET: 'courier-releases',
          COURIER_UPDATE_S3_REGION: 'eu-west-1',
        }),
      ).toEqual([config.publish[1]]);
      expect(releaseFeeds(config.publish, { COURIER_UPDATE_S3_BUCKET: 'x' })).toBeNull();
      expect(releaseFeeds(config.publish, {})).toBeNull();
    });

    it('is used by npm run dist, which writes the feed files without uploading them', async () => {
      const script = await readFile('scripts/dist.mjs', 'utf8');
      expect(script).toContain("publish: 'never'");
      expect(script).toContain('releaseFeeds(config.publish, process.env)');
    });
  });

  describe('electronFuses', () => {
    it.each([
      ['runAsNode', false],
      ['enableNodeOptionsEnvironmentVariable', false],
      ['enableNodeCliInspectArguments', false],
      ['onlyLoadAppFromAsar', true],
      ['enableEmbeddedAsarIntegrityValidation', true],
      ['enableCookieEncryption', true],
      // The page comes from app://, so file:// keeps no extra privileges.
      ['grantFileProtocolExtraPrivileges', false],
    ])('sets %s to %s', (fuse, value) => {
      expect(config.electronFuses[fuse]).toBe(value);
    });
  });

  it('packs the app into an asar, unpacking only the native keychain module', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toEqual(['**/node_modules/@napi-rs/keyring*/**']);
  });

  it('ships the built bundles and package.json, without source maps', () => {
    expect(config.files).toEqual(['dist/**/*', '!dist/**/*.map', 'package.json']);
    expect(packageJson.main).toBe('dist/main/main.cjs');
  });

  it('names the app as package.json does', () => {
    expect(config.appId).toBe('com.catalogcourier.app');
    expect(config.productName).toBe(packageJson.productName);
  });

  it('builds a dmg and a zip for macOS, signed with the hardened runtime and notarised', async () => {
    expect(config.mac.target).toEqual(['dmg', 'zip']);
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.notarize).toBe(true);
    expect(config.mac.entitlements).toBe('resources/entitlements.mac.plist');
    expect(config.mac.entitlementsInherit).toBe('resources/entitlements.mac.plist');
  });

  it('asks the hardened runtime for JIT only', async () => {
    const plist = await readFile('resources/entitlements.mac.plist', 'utf8');
    const keys = [...plist.matchAll(/<key>([^<]+)<\/key>/g)].map((match) => match[1]);
    expect(keys).toEqual(['com.apple.security.cs.allow-jit']);
  });

  it('builds an NSIS installer for Windows and an AppImage and a deb for Linux', () => {
    expect(config.win.target).toEqual(['nsis']);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
  });

  it('has icons made from the one source image, small enough to commit', async () => {
    for (const path of [
      'resources/icon.svg',
      'resources/icon.png',
      'resources/icons/512x512.png',
    ]) {
      expect((await stat(path)).size, path).toBeLessThan(200_000);
    }
    const png = await readFile('resources/icon.png');
    // The PNG header's width and height: electron-builder makes the .icns and .ico from 1024 px.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 1024]);
    expect(config.mac.icon).toBe('resources/icon.png');
    expect(config.linux.icon).toBe('resources/icons');
  });

  it('is built by `npm run dist` after the renderer, the main bundle and the CLI bundle', () => {
    expect(packageJson.scripts.dist).toBe('npm run -s build && node scripts/dist.mjs');
    expect(packageJson.scripts.build).toContain('npm run -s build:cli');
  });

  it('is a configuration electron-builder accepts (its own schema)', async () => {
    const require = createRequire(import.meta.url);
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(config: unknown, logger: unknown): Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as {
      DebugLogger: new (on: boolean) => unknown;
    };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  describe('the courier command inside the app', () => {
    it('ships the CLI bundle in app.asar, where its native modules resolve as main’s do', () => {
      expect(config.files).toContain('dist/**/*');
      expect(config.electronFuses.runAsNode).toBe(false);
    });

    it('ships the launcher in <resources>/bin, where the menu, installer and package look', () => {
      const posixLauncher = [{ from: 'resources/cli/courier', to: 'bin/courier' }];
      expect(config.mac.extraResources).toEqual(posixLauncher);
      expect(config.linux.extraResources).toEqual(posixLauncher);
      expect(config.win.extraResources).toEqual([
        { from: 'resources/cli/courier.cmd', to: 'bin/courier.cmd' },
      ]);
      expect(launcherPath('darwin', '/R')).toBe('/R/bin/courier');
      expect(launcherPath('win32', 'C:\\R')).toBe('C:\\R\\bin\\courier.cmd');
    });

    it('has an executable POSIX launcher and a Windows one that pass every argument on', async () => {
      expect((await stat('resources/cli/courier')).mode & 0o111).toBe(0o111);
      const { stdout } = await promisify(execFile)('git', [
        'ls-files',
        '-s',
        'resources/cli/courier',
      ]);
      expect(stdout).toMatch(/^100755 /);
      const cmd = await readFile('resources/cli/courier.cmd', 'utf8');
      expect(cmd).toContain('"%~dp0..\\..\\Catalog Courier.exe" --courier-cli -- %*');
      expect(cmd).toContain('exit /b %ERRORLEVEL%');
      expect(cmd.split('\n').every((line) => line === '' || line.endsWith('\r'))).toBe(true);
    });

    it('offers, in the Windows installer, to add the launcher’s folder to the user’s PATH', async () => {
      expect(config.nsis.include).toBe('resources/installer.nsh');
      const nsh = await readFile('resources/installer.nsh', 'utf8');
      expect(nsh).toMatch(/!macro customInstall\b[\s\S]*MessageBox MB_YESNO[\s\S]*!macroend/);
      expect(nsh).toMatch(/!macro customUnInstall\b[\s\S]*\$\{IfNot\} \$\{isUpdated\}/);
      expect(nsh.match(/\$INSTDIR\\resources\\bin/g)).toHaveLength(2);
      expect(nsh).toContain("CurrentUser.CreateSubKey('Environment')");
      expect(nsh).toContain('DoNotExpandEnvironmentNames');
    });

    describe('the .deb’s scripts', () => {
      const scripts = {
        'after-install': 'resources/linux/after-install.sh',
        'after-remove': 'resources/linux/after-remove.sh',
      } as const;

      it('are electron-builder’s own, kept whole, plus the courier command', async () => {
        expect(config.deb).toMatchObject({
          afterInstall: scripts['after-install'],
          afterRemove: scripts['after-remove'],
        });
        for (const [template, path] of Object.entries(scripts)) {
          const ours = await readFile(path, 'utf8');
          const builders = await readFile(
            join('node_modules/app-builder-lib/templates/linux', `${template}.tpl`),
            'utf8',
          );
          // An electron-builder upgrade that changes its script fails here: copy it again.
          expect(ours, path).toContain(builders.replace(/^#!\/bin\/bash\n/, ''));
          // electron-builder fills in ${name} and fails on a name it doesn't know.
          const names = new Set([...ours.matchAll(/\$\{([a-zA-Z]+)\}/g)].map((m) => m[1]));
          expect([...names].sort(), path).toEqual(['executable', 'sanitizedProductName']);
        }
      });

      it('link /usr/bin/courier to the launcher, never over another program’s, and unlink only theirs', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'courier-deb-'));
        try {
          const opt = join(dir, 'opt', 'Catalog Courier');
          const usrBin = join(dir, 'usr-bin-courier');
          // The courier part of each script, run with the package's paths moved into dir.
          const section = async (path: string) => {
            const text = await readFile(path, 'utf8');
            return text
              .slice(text.indexOf('# The courier command'))
              .replaceAll('/opt/${sanitizedProductName}', opt)
              .replaceAll(DEB_LINK, usrBin);
          };
          const bash = async (script: string) =>
            (await promisify(execFile)('bash', ['-c', script])).stdout;
          const install = await section(scripts['after-install']);
          const remove = await section(scripts['after-remove']);
          const launcher = launcherPath('linux', join(opt, 'resources'));

          await bash(install);
          expect(await readlink(usrBin)).toBe(launcher);
          await bash(install); // an upgrade runs it again
          expect(await readlink(usrBin)).toBe(launcher);
          await bash(remove);
          await expect(lstat(usrBin)).rejects.toThrow(/ENOENT/);

          await mkdir(dir, { recursive: true });
          await writeFile(usrBin, '#!/bin/sh\n');
          expect(await bash(install)).toContain(
            `Skipping ${usrBin}: another program has that name`,
          );
          await bash(remove);
          expect(await readFile(usrBin, 'utf8')).toBe('#!/bin/sh\n');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });
  });
});
