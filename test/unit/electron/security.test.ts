import { readFile } from 'node:fs/promises';

import type { Session, WebContents } from 'electron';
import { describe, expect, it } from 'vitest';

import { APP_URL } from '../../../src-main/electron/app-protocol.js';
import {
  denyPermissions,
  hardenContents,
  isSafeExternalUrl,
  isTrustedSender,
} from '../../../src-main/electron/security.js';
import { createSession, FakeWebContents } from '../../fakes/electron.js';

describe('isSafeExternalUrl()', () => {
  it.each([
    ['https://example.com/help', true],
    ['http://example.com', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['smb://server/share', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isSafeExternalUrl(url)).toBe(expected);
  });
});

describe('isTrustedSender()', () => {
  const contents = new FakeWebContents();
  const trusted = new Set([contents.id]);
  const event = (url: string, parent: unknown = null, sender = contents) =>
    ({ sender, senderFrame: { url, parent } }) as never;

  it('accepts the app window showing the app page', () => {
    expect(isTrustedSender(event(`${APP_URL}#/library`), trusted, APP_URL)).toBe(true);
  });

  it('drops a frame that navigated elsewhere', () => {
    expect(isTrustedSender(event('https://evil.example/'), trusted, APP_URL)).toBe(false);
    expect(isTrustedSender(event('file:///tmp/index.html'), trusted, APP_URL)).toBe(false);
  });

  it('drops a sub-frame and a window the app did not create', () => {
    expect(isTrustedSender(event(APP_URL, { url: APP_URL }), trusted, APP_URL)).toBe(false);
    expect(isTrustedSender(event(APP_URL, null, new FakeWebContents()), trusted, APP_URL)).toBe(
      false,
    );
  });

  it('drops a message whose frame is gone', () => {
    const gone = { sender: contents, senderFrame: null } as never;
    expect(isTrustedSender(gone, trusted, APP_URL)).toBe(false);
  });
});

describe('hardenContents()', () => {
  const setup = () => {
    const contents = new FakeWebContents();
    const opened: string[] = [];
    hardenContents(contents as unknown as WebContents, async (url) => void opened.push(url));
    return { contents, opened };
  };

  it('denies every new window, opening only https links in the browser', () => {
    const { contents, opened } = setup();
    expect(contents.windowOpenHandler!({ url: 'https://example.com/' })).toEqual({
      action: 'deny',
    });
    expect(contents.windowOpenHandler!({ url: 'http://example.com/' })).toEqual({
      action: 'deny',
    });
    expect(opened).toEqual(['https://example.com/']);
  });

  it('blocks navigation, redirects and webviews', () => {
    const { contents, opened } = setup();
    expect(contents.emitCancellable('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.emitCancellable('will-navigate', 'https://example.com/docs')).toBe(true);
    expect(contents.emitCancellable('will-redirect', 'https://example.com/')).toBe(true);
    expect(contents.emitCancellable('will-attach-webview', {}, {})).toBe(true);
    expect(opened).toEqual(['https://example.com/docs']);
  });
});

describe('denyPermissions()', () => {
  it('refuses every permission request and check', () => {
    const session = createSession();
    denyPermissions(session as unknown as Session);
    let granted: boolean | undefined;
    session.requestHandler!(null, 'media', (answer: boolean) => (granted = answer));
    expect(granted).toBe(false);
    expect(session.checkHandler!(null, 'notifications')).toBe(false);
  });
});

describe('the renderer page', () => {
  it('carries a strict Content-Security-Policy', async () => {
    const html = await readFile('src-renderer/index.html', 'utf8');
    const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
    const directives = new Map(
      csp.split(';').map((part) => {
        const [name = '', ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:*']);
    expect(csp).not.toMatch(/unsafe-eval|https?:\/\/(?!127)/);
  });
});
