import nodePath from 'node:path';

import type { IpcMainInvokeEvent, Session, WebContents } from 'electron';

/** Only https links ever leave the app, and only to the user's browser. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Whether a frame's URL is the app's own page (query and fragment aside). */
export function isAppUrl(url: string, appUrl: string): boolean {
  try {
    const a = new URL(url);
    const b = new URL(appUrl);
    return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname;
  } catch {
    return false;
  }
}

/**
 * Whether an IPC message comes from a window this app created, showing its own page. Anything
 * else — a frame that navigated away, an iframe, a window we never made — is dropped.
 */
export function isTrustedSender(
  event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>,
  trustedContents: ReadonlySet<number>,
  appUrl: string,
): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  return trustedContents.has(event.sender.id) && isAppUrl(frame.url, appUrl);
}

/** Denies new windows and navigation in a web contents; safe links open in the browser. */
export function hardenContents(
  contents: WebContents,
  openExternal: (url: string) => Promise<void>,
): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    if (isSafeExternalUrl(url)) void openExternal(url);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Refuses every permission (camera, notifications prompt, geolocation...) the page may ask. */
export function denyPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/**
 * The path of a dropped or picked file as the preload reported it, or null when it can't be
 * one: relative, not normalised (`..`), or not ending in the name and relative path the
 * renderer claims. A compromised renderer can still name a path, so core then grants it only
 * when the file on disk matches the claimed size and modification time to the millisecond.
 */
export function droppedFilePath(
  ref: { name: string; relativePath: string; path?: string },
  paths: Pick<typeof nodePath, 'isAbsolute' | 'normalize' | 'basename' | 'sep'> = nodePath,
): string | null {
  const path = ref.path;
  if (!path || path.includes('\0') || !paths.isAbsolute(path)) return null;
  if (paths.normalize(path) !== path || path.split(/[\\/]/).includes('..')) return null;
  // macOS may hand back decomposed names; compare the way the user sees them.
  const nfc = (text: string) => text.normalize('NFC');
  const name = nfc(ref.name);
  if (nfc(paths.basename(path)) !== name) return null;
  const segments = nfc(ref.relativePath).split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return null;
  }
  if (segments.at(-1) !== name) return null;
  return nfc(path).endsWith(paths.sep + segments.join(paths.sep)) ? path : null;
}
