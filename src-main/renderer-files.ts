/**
 * The built renderer's files, as both doors serve them: the app over its `app://` scheme, the
 * browser host over HTTP. One lookup, so neither can be talked into serving a file from
 * outside the build.
 */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** A file of the build and its Content-Type. */
export interface RendererFile {
  body: Buffer;
  type: string;
}

/**
 * Reads the file a URL path names under `root` (`/` is index.html), or null when there is none
 * inside the build: `..`, encoded or not, can't leave it.
 */
export async function readRendererFile(
  root: string,
  urlPath: string,
): Promise<RendererFile | null> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (pathname.includes('\0')) return null;
  const file = normalize(join(root, pathname === '/' ? 'index.html' : pathname));
  if (!file.startsWith(resolve(root) + sep)) return null;
  const body = await readFile(file).catch(() => null);
  if (!body) return null;
  return { body, type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' };
}
