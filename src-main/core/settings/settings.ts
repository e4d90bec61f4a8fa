/**
 * The app's settings as the user sets them: one type for the store (`settings-store.ts`), the
 * contract and the renderer. Pure: no Node imports, so the renderer's type-check can include it.
 */
import type { DeliveryMode } from '../delivery/delivery-summary.js';

/** What the user can set in Settings. */
export interface Settings {
  /** Transfers in flight at once (files and parts together). */
  concurrency: number;
  /** Upload bandwidth limit in KiB/s; 0 means no limit. */
  bandwidthLimitKiB: number;
  /** Defaults of the Deliver view's options (the interface's defaults unless changed). */
  defaults: {
    mode: DeliveryMode;
    overwrite_audio_file: boolean;
    delete_delivered_file: boolean;
  };
  /**
   * The interface asks that large ingestions be announced to the provider beforehand: a
   * delivery of at least this many tracks, or this many GiB, gets a reminder with a summary.
   */
  announceAbove: { tracks: number; gib: number };
}
