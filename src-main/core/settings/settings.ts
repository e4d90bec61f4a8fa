/**
 * The app's settings as the user sets them: one type for the store (`settings-store.ts`), the
 * contract and the renderer. Pure: no Node imports, so the renderer's type-check can include it.
 */
import type { DeliveryMode } from '../delivery/delivery-summary.js';
import { defaultRules, type DeliveryRules } from '../model/delivery-rules.js';

/** The options a new delivery starts from. */
export interface DeliveryDefaults {
  mode: DeliveryMode;
  overwrite_audio_file: boolean;
  delete_delivered_file: boolean;
}

/** The interface's defaults (§ ingestion options): json, overwrite and delete delivered files. */
export const interfaceDefaults: DeliveryDefaults = {
  mode: 'json',
  overwrite_audio_file: true,
  delete_delivered_file: true,
};

/**
 * What a new delivery on a profile starts from: the defaults the user saved for that profile,
 * else the app's (the interface's unless changed in Settings). Every new delivery starts here,
 * so one delivery's choices never carry over silently to the next.
 */
export function deliveryDefaults(
  settings: Settings,
  profile: string | undefined,
): DeliveryDefaults {
  return (profile !== undefined && settings.profileDefaults[profile]) || settings.defaults;
}

/** The masters rules of a profile: those the user set for it, else every profile's defaults. */
export function rulesFor(settings: Settings, profile: string | undefined): DeliveryRules {
  return (profile !== undefined && settings.profileRules[profile]) || defaultRules;
}

/** What the user can set in Settings. */
export interface Settings {
  /** Transfers in flight at once (files and parts together). */
  concurrency: number;
  /** Upload bandwidth limit in KiB/s; 0 means no limit. */
  bandwidthLimitKiB: number;
  /** Defaults of the Deliver view's options (the interface's defaults unless changed). */
  defaults: DeliveryDefaults;
  /** Defaults a user saved for one profile (by name): they win over `defaults` there. */
  profileDefaults: Record<string, DeliveryDefaults>;
  /** The masters rules a user set for one profile (by name); others follow `defaultRules`. */
  profileRules: Record<string, DeliveryRules>;
  /**
   * The interface asks that large ingestions be announced to the provider beforehand: a
   * delivery of at least this many tracks, or this many GiB, gets a reminder with a summary.
   */
  announceAbove: { tracks: number; gib: number };
}
