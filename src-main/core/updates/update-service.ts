/**
 * The app's updates, door-neutral: checks the build's release feed (core's own fetch, so the
 * rule "what is offered" has one home and is tested against a real HTTP server), keeps the
 * prompt's state, and hands downloading and installing to the door's installer (electron-updater
 * in the app) only when the user says so.
 */
import { type FeedFetch, fetchReleaseFeed } from './fetch-feed.js';
import { FeedError, feedFileName, feedFileUrl } from './release-feed.js';
import type { SkippedVersionStore } from './skipped-version.js';
import type { UpdateConfig } from './update-config.js';
import {
  canDownload,
  checkOutcome,
  nextUpdateState,
  NOT_CONFIGURED,
  type UpdateEvent,
  type UpdateState,
} from './update-state.js';
import { parseVersion } from './version-order.js';

/** What the door does that core can't: fetch the platform's installer and run it. */
export interface UpdateInstaller {
  /** Downloads (and verifies) the release the feed now offers, reporting percent done. */
  download(expectedVersion: string, onProgress: (percent: number) => void): Promise<void>;
  /** Quits the app and installs the downloaded release; the app restarts into it. */
  install(): void;
}

export interface UpdateServiceOptions {
  /** The build's feed (`readUpdateConfig`); null: not configured, nothing is ever fetched. */
  config: UpdateConfig | null;
  currentVersion: string;
  platform: string;
  arch: string;
  installer: UpdateInstaller;
  skipped: SkippedVersionStore;
  /** The seam for the proxy: the feed check's fetch (default: Node's). */
  fetch?: FeedFetch;
  timeoutMs?: number;
  now?: () => Date;
  /** Told every check, its outcome and every failure, for the log. */
  onLog?: (level: 'info' | 'warning', message: string, fields?: Record<string, unknown>) => void;
}

type Listener = (state: UpdateState) => void;

/** One app's update prompt: its state, and what the user and the start-up check can ask of it. */
export class UpdateService {
  #state: UpdateState;
  readonly #listeners = new Set<Listener>();
  readonly #options: UpdateServiceOptions;

  constructor(options: UpdateServiceOptions) {
    this.#options = options;
    this.#state = options.config
      ? { phase: 'idle' }
      : { phase: 'not-configured', message: NOT_CONFIGURED };
  }

  /** The prompt's state now. */
  get state(): UpdateState {
    return this.#state;
  }

  /** The feed file's address for this platform, or null when the build names no feed. */
  get feedUrl(): string | null {
    const { config, platform, arch } = this.#options;
    if (!config) return null;
    const channel = config.provider === 'generic' ? config.channel : undefined;
    return feedFileUrl(config.url, feedFileName(platform, arch, channel));
  }

  /** Calls `listener` with every new state; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * Checks the feed. `manual` (the menu, the Settings button) also shows a version the user put
   * off with Later. A check during a download or with an install ready changes nothing.
   */
  async check(options: { manual: boolean }): Promise<UpdateState> {
    const url = this.feedUrl;
    if (!url) return this.#state;
    const before = this.#state;
    if (this.#apply({ type: 'check' }) === before) return before;
    const log = this.#options.onLog ?? (() => undefined);
    const current = parseVersion(this.#options.currentVersion);
    try {
      if (!current)
        throw new FeedError(
          `This build's version ${this.#options.currentVersion} is not a semantic version.`,
        );
      const feed = await fetchReleaseFeed(url, {
        fetch: this.#options.fetch,
        timeoutMs: this.#options.timeoutMs,
      });
      const event = checkOutcome({
        feed: { ...feed, notes: feed.releaseNotes },
        current,
        skipped: await this.#options.skipped.read(),
        manual: options.manual,
        at: (this.#options.now?.() ?? new Date()).toISOString(),
      });
      log('info', 'Update check', {
        feed: url,
        latest: feed.version,
        offered: event.type === 'found',
      });
      return this.#apply(event);
    } catch (error) {
      const reason =
        error instanceof FeedError ? error.message : `The update check failed: ${messageOf(error)}`;
      log('warning', 'Update check failed', { feed: url, reason });
      return this.#apply({ type: 'failed', reason });
    }
  }

  /** The user's "Download and install": downloads the offered release, then it is ready. */
  async download(): Promise<UpdateState> {
    if (!canDownload(this.#state)) return this.#state;
    const state = this.#apply({ type: 'download' });
    if (state.phase !== 'downloading') return state;
    try {
      await this.#options.installer.download(state.offer.version, (percent) =>
        this.#apply({ type: 'progress', percent }),
      );
      return this.#apply({ type: 'downloaded' });
    } catch (error) {
      const reason = `Catalog Courier ${state.offer.version} could not be downloaded (${messageOf(error)}): try again, or download it from the release page.`;
      this.#options.onLog?.('warning', 'Update download failed', { reason });
      return this.#apply({ type: 'failed', reason });
    }
  }

  /** The user's "Later": the offer goes quiet, and stays so for this version across restarts. */
  async later(): Promise<UpdateState> {
    if (this.#state.phase !== 'available') return this.#state;
    const { version } = this.#state.offer;
    const state = this.#apply({ type: 'later' });
    await this.#options.skipped.write(version);
    return state;
  }

  /** The user's "Restart to install": only once a release is downloaded. */
  install(): UpdateState {
    if (this.#state.phase !== 'ready') return this.#state;
    try {
      this.#options.installer.install();
    } catch (error) {
      return this.#apply({
        type: 'failed',
        reason: `Catalog Courier ${this.#state.offer.version} could not be installed (${messageOf(error)}): quit the app and run the installer from the release page.`,
      });
    }
    return this.#state;
  }

  #apply(event: UpdateEvent): UpdateState {
    const next = nextUpdateState(this.#state, event);
    if (next === this.#state) return next;
    this.#state = next;
    for (const listener of this.#listeners) listener(next);
    return next;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
