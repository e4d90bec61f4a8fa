/**
 * The app's own `app://` scheme, serving the built renderer. With it the page no longer loads
 * from `file://`, so the `grantFileProtocolExtraPrivileges` fuse can be off: no page in the app
 * gets the file protocol's extra reach, and the page's origin is `app://courier`, not every
 * file on the disk.
 */
import type { CustomScheme } from 'electron';

import { readRendererFile } from '../renderer-files.js';

export const APP_SCHEME = 'app';
const APP_HOST = 'courier';

/** The page the window loads, and the only one whose IPC messages are trusted. */
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * Registered before the app is ready: standard (an origin, relative URLs, storage) and secure
 * (treated like https, as module scripts and workers need); nothing else.
 */
export const appScheme: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};

/** The `protocol.handle` handler: files of the build by path, 404 for anything else. */
export function createAppProtocolHandler(root: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response(null, { status: 404 });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405 });
    }
    const file = await readRendererFile(root, url.pathname);
    if (!file) return new Response(null, { status: 404 });
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(file.body), {
      headers: {
        'Content-Type': file.type,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      },
    });
  };
}
