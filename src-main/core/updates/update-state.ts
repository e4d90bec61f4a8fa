/**
 * The update prompt's state, and the one function that moves it: idle → checking →
 * available / up-to-date / failed → downloading → ready (to install). Nothing downloads or
 * installs but on the user's word: only `download` and `install` events, which only the user's
 * buttons send, leave `available` and `ready`. Pure: shared by main and, as types, the renderer.
 */
import { isNewer, type Version } from './version-order.js';

/** A release the feed offers. */
export interface UpdateOffer {
  version: string;
  /** Plain text, never HTML. */
  notes: string;
  releaseDate?: string;
}

/** Where the update prompt stands. */
export type UpdateState =
  /** This door cannot update itself (the browser host, the CLI). */
  | { phase: 'unsupported'; message: string }
  /** This build names no release feed. */
  | { phase: 'not-configured'; message: string }
  | { phase: 'idle' }
  | { phase: 'checking' }
  | { phase: 'up-to-date'; latest: string; checkedAt: string }
  /** `later`: the user chose Later for this version; the app keeps quiet about it. */
  | { phase: 'available'; offer: UpdateOffer; later: boolean }
  | { phase: 'downloading'; offer: UpdateOffer; percent: number }
  | { phase: 'ready'; offer: UpdateOffer }
  /** A check, download or install failed; `offer` is kept so the user can try again. */
  | {
      phase: 'failed';
      reason: string;
      during: 'check' | 'download' | 'install';
      offer?: UpdateOffer;
    };

export type UpdatePhase = UpdateState['phase'];

/** What happens to the prompt. */
export type UpdateEvent =
  | { type: 'check' }
  | { type: 'found'; offer: UpdateOffer; later: boolean }
  | { type: 'up-to-date'; latest: string; at: string }
  | { type: 'failed'; reason: string }
  | { type: 'later' }
  | { type: 'download' }
  | { type: 'progress'; percent: number }
  | { type: 'downloaded' }
  | { type: 'install' };

/** The line the doors without an updater answer with. */
export const UPDATES_ELSEWHERE =
  'Updates are the desktop app’s: this browser host runs from a checkout, so update it with git.';

/** The line a build without a release feed answers with. */
export const NOT_CONFIGURED = 'Updates: not configured in this build.';

/**
 * The state after an event. An event the state does not expect (a second click, a progress
 * report after a failure) leaves it as it is.
 */
export function nextUpdateState(state: UpdateState, event: UpdateEvent): UpdateState {
  const phase = state.phase;
  if (phase === 'unsupported' || phase === 'not-configured') return state;
  switch (event.type) {
    case 'check':
      // A check never interrupts a download or a ready install.
      return phase === 'checking' || phase === 'downloading' || phase === 'ready'
        ? state
        : { phase: 'checking' };
    case 'found':
      return phase === 'checking'
        ? { phase: 'available', offer: event.offer, later: event.later }
        : state;
    case 'up-to-date':
      return phase === 'checking'
        ? { phase: 'up-to-date', latest: event.latest, checkedAt: event.at }
        : state;
    case 'failed':
      if (phase === 'checking') return { phase: 'failed', reason: event.reason, during: 'check' };
      if (phase === 'downloading') {
        return { phase: 'failed', reason: event.reason, during: 'download', offer: state.offer };
      }
      if (phase === 'ready') {
        return { phase: 'failed', reason: event.reason, during: 'install', offer: state.offer };
      }
      return state;
    case 'later':
      return phase === 'available' ? { ...state, later: true } : state;
    case 'download':
      if (phase === 'available') return { phase: 'downloading', offer: state.offer, percent: 0 };
      if (phase === 'failed' && state.during === 'download' && state.offer) {
        return { phase: 'downloading', offer: state.offer, percent: 0 };
      }
      return state;
    case 'progress': {
      // Whole percents only, never backwards: the renderer hears of each step once.
      const percent = Math.floor(clampPercent(event.percent));
      return phase === 'downloading' && percent > state.percent ? { ...state, percent } : state;
    }
    case 'downloaded':
      return phase === 'downloading' ? { phase: 'ready', offer: state.offer } : state;
    case 'install':
      return state;
  }
}

/** Whether the user's word can start a download now (the service checks before it runs one). */
export function canDownload(state: UpdateState): boolean {
  return nextUpdateState(state, { type: 'download' }).phase === 'downloading';
}

/**
 * What a check found, as an event: an offer only for a newer version (never the same, never a
 * downgrade), and a prerelease only to a build that is one; a version the user put off with
 * Later stays quiet until a newer one comes, unless the user asked for this check.
 */
export function checkOutcome(input: {
  feed: { version: string; parsedVersion: Version; notes: string; releaseDate?: string };
  current: Version;
  skipped: Version | null;
  manual: boolean;
  at: string;
}): UpdateEvent {
  const { feed, current, skipped } = input;
  const prereleaseForStable =
    feed.parsedVersion.prerelease.length > 0 && current.prerelease.length === 0;
  if (!isNewer(feed.parsedVersion, current) || prereleaseForStable) {
    return { type: 'up-to-date', latest: feed.version, at: input.at };
  }
  const putOff = skipped !== null && !isNewer(feed.parsedVersion, skipped);
  return {
    type: 'found',
    offer: {
      version: feed.version,
      notes: feed.notes,
      ...(feed.releaseDate ? { releaseDate: feed.releaseDate } : {}),
    },
    later: putOff && !input.manual,
  };
}

function clampPercent(percent: number): number {
  return Number.isFinite(percent) ? Math.min(100, Math.max(0, percent)) : 0;
}
