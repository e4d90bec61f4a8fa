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
