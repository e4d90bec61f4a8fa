/**
 * The release feed electron-builder writes beside the installers when `publish` is configured
 * (`npm run dist`): one YAML file per platform — `latest.yml` (Windows), `latest-mac.yml`,
 * `latest-linux.yml` (`latest-linux-arm64.yml` on arm64) — holding the version, the files with
 * their sha512, the release date and the notes. This module names and reads it; a file that is
 * not one becomes a `FeedError` with one line saying what is wrong, never a crash.
 */
import { parse } from 'yaml';

import { CourierError } from '../errors.js';
import { parseVersion, type Version } from './version-order.js';

/** One installer file of a release, as the feed lists it. */
export interface FeedFile {
  /** Relative to the feed's address (electron-builder writes the bare file name). */
  url: string;
  /** Base64 SHA-512 of the file: the updater checks the download against it. */
  sha512: string;
  size?: number;
}

/** What a release feed says. */
export interface ReleaseFeed {
  version: string;
  parsedVersion: Version;
  /** ISO date electron-builder stamped on the release, when present. */
  releaseDate?: string;
  /** The release notes as plain text ('' when the feed has none). */
  releaseNotes: string;
  files: FeedFile[];
}

/** A feed that could not be fetched or read; its message is the one line the user sees. */
export class FeedError extends CourierError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('update_feed', message, options);
    this.name = 'FeedError';
  }
}

/**
 * The feed file electron-updater reads on a platform and CPU (as `Provider.getChannelFile` names
 * it; the channel is `latest` unless the build names another): Linux adds the arch unless x64.
 */
export function feedFileName(platform: string, arch: string, channel = 'latest'): string {
  if (platform === 'win32') return `${channel}.yml`;
  if (platform === 'darwin') return `${channel}-mac.yml`;
  return `${channel}-linux${arch === 'x64' ? '' : `-${arch}`}.yml`;
}

/** The address of a feed file under the feed's base address (a folder, with or without `/`). */
export function feedFileUrl(baseUrl: string, fileName: string): string {
  return new URL(fileName, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).href;
}

/**
 * Reads a feed file's text; `source` names it in errors (its address). Throws `FeedError` for
 * anything that is not a feed electron-updater could install from.
 */
export function parseReleaseFeed(text: string, source: string): ReleaseFeed {
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: false });
  } catch (error) {
    throw new FeedError(`The release feed at ${source} is not valid YAML: ${firstLine(error)}`, {
      cause: error,
    });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new FeedError(`The release feed at ${source} is not a release description.`);
  }
  const feed = raw as Record<string, unknown>;
  const version = typeof feed.version === 'string' ? feed.version : undefined;
  const parsedVersion = version === undefined ? null : parseVersion(version);
  if (!version || !parsedVersion) {
    throw new FeedError(
      `The release feed at ${source} has no valid version (found ${describe(feed.version)}).`,
    );
  }
  const files = filesOf(feed);
  if (files.length === 0) {
    throw new FeedError(`The release feed at ${source} lists no installer file with its sha512.`);
  }
  return {
    version,
    parsedVersion,
    ...(typeof feed.releaseDate === 'string' ? { releaseDate: feed.releaseDate } : {}),
    releaseNotes: notesText(feed.releaseNotes),
    files,
  };
}

/** The files of a feed; electron-updater 1.x feeds only had `path` and `sha512`. */
function filesOf(feed: Record<string, unknown>): FeedFile[] {
  const listed = Array.isArray(feed.files) ? (feed.files as unknown[]) : [];
  const files: FeedFile[] = [];
  for (const entry of listed) {
    if (!entry || typeof entry !== 'object') continue;
    const { url, sha512, size } = entry as Record<string, unknown>;
    if (typeof url !== 'string' || !url || typeof sha512 !== 'string' || !sha512) continue;
    files.push({ url, sha512, ...(typeof size === 'number' ? { size } : {}) });
  }
  if (files.length === 0 && typeof feed.path === 'string' && typeof feed.sha512 === 'string') {
    files.push({ url: feed.path, sha512: feed.sha512 });
  }
  return files;
}

/**
 * Release notes as text. electron-builder copies `release-notes.md` as it is; a GitHub feed can
 * hold HTML, and some feeds list notes per version. Tags are dropped, never rendered: the notes
 * come from a server and are shown as text.
 */
export function notesText(notes: unknown): string {
  if (typeof notes === 'string') return htmlToText(notes).trim();
  if (Array.isArray(notes)) {
    return notes
      .map((item) => {
        if (!item || typeof item !== 'object') return '';
        const { version, note } = item as Record<string, unknown>;
        const text = typeof note === 'string' ? htmlToText(note).trim() : '';
        return typeof version === 'string' && text ? `${version}\n${text}` : text;
      })
      .filter(Boolean)
      .join('\n\n');
  }
  return '';
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function htmlToText(text: string): string {
  if (!/<\/?[a-z][^>]*>/i.test(text)) return text;
  return text
    .replace(/<(br|\/p|\/li|\/h\d|\/div)\b[^>]*>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '• ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_match, name: string) => ENTITIES[name]!)
    .replace(/\n{3,}/g, '\n\n');
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return 'none';
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!;
}
