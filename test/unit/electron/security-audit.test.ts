/**
 * The security audit of the shell, as tests: each item of Electron's security checklist that
 * lives in our code, and the IPC boundary's refusal of anything malformed. docs/security.md
 * gives the threat model these enforce.
 */
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';

import type { Session, WebContents } from 'electron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { proofOfPath } from '../../../src-main/core/files/file-inspection.js';
import { createServices } from '../../../src-main/core/services.js';
import { APP_URL } from '../../../src-main/electron/app-protocol.js';
import {
  denyPermissions,
  droppedFilePath,
  hardenContents,
  isSafeExternalUrl,
  isTrustedSender,
} from '../../../src-main/electron/security.js';
import { mainWindowOptions } from '../../../src-main/electron/window-options.js';
import { type FileRef, operations } from '../../../src-main/ipc/contract.js';
import { createRouter, type Router } from '../../../src-main/ipc/router.js';
import { createSession, FakeWebContents } from '../../fakes/electron.js';

describe('security audit', () => {
  describe('the window', () => {
    const prefs = mainWindowOptions({ preload: '/p.cjs', devTools: false }).webPreferences!;

    it.each([
      ['contextIsolation', true],
      ['sandbox', true],
      ['nodeIntegration', false],
      ['nodeIntegrationInWorker', false],
      ['nodeIntegrationInSubFrames', false],
      ['webSecurity', true],
      ['allowRunningInsecureContent', false],
      ['experimentalFeatures', false],
      ['webviewTag', false],
      ['navigateOnDragDrop', false],
      ['devTools', false],
      ['disableBlinkFeatures', 'Auxclick'],
    ])('sets %s to %s', (key, value) => {
      expect(prefs[key as keyof typeof prefs]).toBe(value);
    });

    it('enables no Blink feature and no remote module', () => {
      expect(prefs).not.toHaveProperty('enableBlinkFeatures');
      expect(prefs).not.toHaveProperty('enableRemoteModule');
    });
  });

  describe('the page’s Content-Security-Policy', () => {
    it('allows no remote origin, no inline or evaluated script, no plugins, no framing', async () => {
      const html = await readFile('src-renderer/index.html', 'utf8');
      const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
      const directive = (name: string) =>
        csp
          .split(';')
          .map((part) => part.trim().split(/\s+/))
          .find(([key]) => key === name)
          ?.slice(1);
      expect(directive('default-src')).toEqual(["'none'"]);
      expect(directive('script-src')).toEqual(["'self'"]);
      expect(directive('object-src')).toEqual(["'none'"]);
      expect(directive('form-action')).toEqual(["'none'"]);
      expect(directive('base-uri')).toEqual(["'none'"]);
      // The only socket is the browser host's, on loopback.
      expect(directive('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:*']);
      expect(csp).not.toMatch(
        /'unsafe-eval'|'wasm-unsafe-eval'|\*(?!\s*;|$)|https?:|data:.*script/,
      );
    });
  });

  describe('navigation and new windows', () => {
    const contents = new FakeWebContents();
    const opened: string[] = [];
    hardenContents(contents as unknown as WebContents, async (url) => void opened.push(url));

    it.each([
      'https://evil.example/',
      'http://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      `${APP_URL}?next`,
    ])('denies a new window for %s', (url) => {
      expect(contents.windowOpenHandler!({ url })).toEqual({ action: 'deny' });
    });

    it.each(['https://example.com/', 'file:///etc/passwd', 'data:text/html,<h1>', APP_URL])(
      'blocks navigation to %s, even to the app page',
      (url) => {
        expect(contents.emitCancellable('will-navigate', url)).toBe(true);
      },
    );

    it('blocks redirects and webviews', () => {
      expect(contents.emitCancellable('will-redirect', 'https://example.com/')).toBe(true);
      expect(contents.emitCancellable('will-attach-webview', {}, {})).toBe(true);
    });
  });

  describe('external links', () => {
    it.each([
      ['https://service.example/docs', true],
      ['HTTPS://service.example/', true],
      ['http://service.example/', false],
      ['file:///Users/ana/.ssh/id_rsa', false],
      ['smb://attacker/share', false],
      ['ms-msdt:/id', false],
      ['vbscript:msgbox', false],
      ['//evil.example', false],
      ['', false],
    ])('%s may open in the browser: %s', (url, safe) => {
      expect(isSafeExternalUrl(url)).toBe(safe);
    });
  });

  describe('permissions', () => {
    it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'hid'])(
      'refuses %s',
      (permission) => {
        const session = createSession();
        denyPermissions(session as unknown as Session);
        let answer: boolean | undefined;
        session.requestHandler!(null, permission, (granted: boolean) => (answer = granted));
        expect(answer).toBe(false);
        expect(session.checkHandler!(null, permission)).toBe(false);
      },
    );
  });

  describe('IPC senders', () => {
    const app = new FakeWebContents();
    const trusted = new Set([app.id]);
    const from = (sender: FakeWebContents, url: string, parent: unknown = null) =>
      ({ sender, senderFrame: { url, parent } }) as never;

    it('accepts only the app window’s top frame showing the app page', () => {
      expect(isTrustedSender(from(app, APP_URL), trusted, APP_URL)).toBe(true);
      expect(isTrustedSender(from(app, APP_URL, {}), trusted, APP_URL)).toBe(false);
      expect(isTrustedSender(from(app, 'https://evil.example/'), trusted, APP_URL)).toBe(false);
      expect(isTrustedSender(from(new FakeWebContents(), APP_URL), trusted, APP_URL)).toBe(false);
      expect(
        isTrustedSender(from(app, 'file:///tmp/dist/renderer/index.html'), trusted, APP_URL),
      ).toBe(false);
    });
  });

  describe('IPC requests', () => {
    let home: string;
    let router: Router;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'courier-audit-'));
      router = createRouter(
        {
          kind: 'electron',
          locate: async (ref) => {
            const dropped = droppedFilePath(ref);
            return dropped ? [dropped] : [];
          },
        },
        createServices({ COURIER_HOME: home, COURIER_KEYCHAIN_SERVICE: 'courier-audit' }),
      );
    });
    afterAll(() => rm(home, { recursive: true, force: true }));

    const channels = Object.values(operations).map((op) => op.channel);

    it.each(channels)('%s refuses a request of the wrong type', async (channel) => {
      for (const raw of [42, 'request', true, [], [{}]]) {
        expect(await router.dispatch(channel, raw), JSON.stringify(raw)).toMatchObject({
          ok: false,
          error: { code: 'invalid_request' },
        });
      }
    });

    it.each(channels)('%s refuses a request with a field the contract lacks', async (channel) => {
      for (const extra of ['extra', '__proto__', 'constructor']) {
        const raw = JSON.parse(`{"${extra}": {"polluted": true}}`) as unknown;
        expect(await router.dispatch(channel, raw), extra).toMatchObject({
          ok: false,
          error: { code: 'invalid_request' },
        });
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('refuses a channel the contract does not have', async () => {
      expect(await router.dispatch('shell:openExternal', { url: 'file:///' })).toMatchObject({
        ok: false,
        error: { code: 'unknown_channel' },
      });
    });

    it('refuses a profile carrying a secret the renderer should never send back', async () => {
      const result = await router.dispatch('profiles:save', {
        profile: {
          name: 'x',
          environment: 'development',
          base_url: 'https://api.example',
          client_id: 'id',
          bucket: { bucket_name: 'b', bucket_region: 'eu-west-1', access_key_id: 'AKIA' },
          catalogs: [],
          client_secret: 'leaked',
        },
      });
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect((result as { error: { message: string } }).error.message).not.toContain('leaked');
    });

    describe('files:grant', () => {
      let music: string;
      let ref: FileRef;
      beforeAll(async () => {
        music = join(home, 'music', 'Album');
        await mkdir(music, { recursive: true });
        const file = join(music, '01.flac');
        await writeFile(file, 'fLaC');
        await utimes(file, new Date(1_700_000_000_000), new Date(1_700_000_000_000));
        const info = await stat(file);
        ref = {
          name: '01.flac',
          relativePath: 'Album/01.flac',
          size: info.size,
          lastModified: Math.trunc(info.mtimeMs),
          path: file,
          proof: proofOfPath(file, info.size)!,
        };
      });

      const grant = async (files: FileRef[]) =>
        (await router.dispatch('files:grant', { files })) as {
          ok: true;
          value: { granted: unknown[]; refused: Array<{ reason: string }> };
        };

      it('grants the file the user dropped, as the preload described it', async () => {
        const result = await grant([ref]);
        expect(result.value.granted).toHaveLength(1);
      });

      it.each<[string, () => Partial<FileRef>]>([
        ['a relative path', () => ({ path: 'Album/01.flac' })],
        [
          'a path that climbs out with ..',
          () => ({
            path: join(music, '..', '..', 'music', 'Album', '01.flac').replace(
              '/music/Album',
              '/music/../music/Album',
            ),
          }),
        ],
        ['a path whose name is not the file’s', () => ({ path: join(home, 'profiles.json') })],
        ['a path not ending in the relative path', () => ({ relativePath: 'Other/01.flac' })],
        ['a relative path that climbs', () => ({ relativePath: '../Album/01.flac' })],
        ['a path with a NUL byte', () => ({ path: `${music}\0/01.flac` })],
        ['no path at all (a File made in the page)', () => ({ path: undefined })],
        ['a size the file does not have', () => ({ size: 1_000 })],
        ['a modification time the file does not have', () => ({ lastModified: 1_600_000_000_000 })],
        [
          'a content proof of other bytes (path, size and date guessed)',
          () => ({ proof: 'a'.repeat(64) }),
        ],
      ])('refuses %s', async (_case, change) => {
        const result = await grant([{ ...ref, ...change() }]);
        expect(result.value.granted).toEqual([]);
        expect(result.value.refused).toHaveLength(1);
      });

      it('refuses a folder named as a file', async () => {
        const result = await grant([
          { ...ref, name: 'Album', relativePath: 'Album', size: 0, lastModified: 0, path: music },
        ]);
        expect(result.value.granted).toEqual([]);
      });

      it('accepts Windows paths the same way', () => {
        const windows = {
          name: '01.flac',
          relativePath: 'Album/01.flac',
          path: 'C:\\Music\\Album\\01.flac',
        };
        expect(droppedFilePath(windows, path.win32)).toBe('C:\\Music\\Album\\01.flac');
        expect(
          droppedFilePath({ ...windows, path: 'C:\\Music\\..\\Album\\01.flac' }, path.win32),
        ).toBe(null);
        expect(droppedFilePath({ ...windows, path: 'Album\\01.flac' }, path.win32)).toBe(null);
      });

      it('reads tags (files:readTags) only of granted ids, at the path they were granted under', async () => {
        const { id } = (await grant([ref])).value.granted[0] as { id: string };
        for (const [files, code] of [
          [[{ id: 'f'.repeat(24), relativePath: 'Album/01.flac' }], 'not_granted'],
          [[{ id, relativePath: '../Album/01.flac' }], 'invalid_request'],
          [[{ id, relativePath: 'Other/01.flac' }], 'invalid_request'],
          [[{ id, relativePath: 'Album/01.flac', path: '/etc/passwd' }], 'invalid_request'],
        ] as const) {
          expect(
            await router.dispatch('files:readTags', { files }),
            JSON.stringify(files),
          ).toMatchObject({
            ok: false,
            error: { code },
          });
        }
        expect(
          await router.dispatch('files:readTags', {
            files: [{ id, relativePath: 'Album/01.flac' }],
          }),
        ).toMatchObject({
          ok: true,
          value: { results: [{ id, result: { file: 'Album/01.flac' } }] },
        });
      });
    });

    it('names no local path in a download or a folder request: main chooses them', async () => {
      for (const [channel, raw] of [
        ['bucket:save', { profile: 'Sandbox', key: 'INFO.json', path: '/home/ana/.bashrc' }],
        ['bucket:save', { profile: 'Sandbox', key: 'INFO.json', fileName: '../../.bashrc' }],
        ['app:openLogs', { path: '/' }],
        ['app:openDataFolder', { path: '/' }],
      ] as const) {
        expect(await router.dispatch(channel, raw), channel).toMatchObject({
          ok: false,
          error: { code: 'invalid_request' },
        });
      }
    });
  });
});
