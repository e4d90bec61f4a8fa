import { readFile, stat } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { releaseFeeds } from '../../../scripts/release-feed.mjs';

interface BuilderConfig {
  appId: string;
  productName: string;
  asar: boolean;
  asarUnpack: string[];
  files: string[];
  electronFuses: Record<string, boolean>;
  mac: Record<string, unknown> & { target: string[] };
  win: Record<string, unknown> & { target: string[] };
  linux: Record<string, unknown> & { target: string[] };
  publish: Array<Record<string, string>>;
}

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

  it('is built by `npm run dist` after the renderer and the main bundle', () => {
    expect(packageJson.scripts.dist).toBe('npm run -s build && node scripts/dist.mjs');
  });
});
