import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { feedFileName, feedFileUrl } from '../../../src-main/core/updates/release-feed.js';
import {
  parseUpdateConfig,
  readUpdateConfig,
} from '../../../src-main/core/updates/update-config.js';

describe('the build’s feed (app-update.yml)', () => {
  it('reads the generic feed electron-builder writes into the resources', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'courier-resources-'));
    await writeFile(
      join(dir, 'app-update.yml'),
      'provider: generic\nurl: https://updates.example.com/courier\nupdaterCacheDirName: catalog-courier-updater\n',
    );
    expect(readUpdateConfig(dir)).toEqual({
      provider: 'generic',
      url: 'https://updates.example.com/courier',
    });
  });

  it('has none in an unpackaged run or a build made without a feed', async () => {
    expect(readUpdateConfig(null)).toBeNull();
    expect(readUpdateConfig(await mkdtemp(join(tmpdir(), 'courier-resources-')))).toBeNull();
  });

  it('builds an S3 feed’s address as electron-updater does', () => {
    expect(
      parseUpdateConfig('provider: s3\nbucket: courier-releases\npath: /stable\n', 'x').url,
    ).toBe('https://courier-releases.s3.amazonaws.com/stable');
    expect(
      parseUpdateConfig('provider: s3\nbucket: releases.example\nregion: eu-west-1\n', 'x').url,
    ).toBe('https://s3-eu-west-1.amazonaws.com/releases.example');
  });

  it.each([
    ['provider: github\nowner: x\n', 'name provider "github"; this app reads generic or s3'],
    ['provider: generic\n', 'have no http(s) url for the feed'],
    ['provider: generic\nurl: ftp://x\n', 'have no http(s) url for the feed'],
    ['provider: s3\n', 'name no S3 bucket'],
  ])('refuses %j in one line', (text, what) => {
    expect(() => parseUpdateConfig(text, '/app/resources/app-update.yml')).toThrow(
      `The update settings in /app/resources/app-update.yml ${what}.`,
    );
  });
});

describe('feed file names', () => {
  it.each([
    ['win32', 'x64', 'latest.yml'],
    ['darwin', 'arm64', 'latest-mac.yml'],
    ['linux', 'x64', 'latest-linux.yml'],
    ['linux', 'arm64', 'latest-linux-arm64.yml'],
  ])('%s %s reads %s', (platform, arch, name) => {
    expect(feedFileName(platform, arch)).toBe(name);
  });

  it('resolves under the feed’s folder, with or without a trailing slash', () => {
    expect(feedFileUrl('https://u.example.com/courier', 'latest.yml')).toBe(
      'https://u.example.com/courier/latest.yml',
    );
    expect(feedFileUrl('https://u.example.com/courier/', 'latest.yml')).toBe(
      'https://u.example.com/courier/latest.yml',
    );
  });
});
