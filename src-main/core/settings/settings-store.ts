/**
 * The app's settings: upload concurrency, bandwidth limit, the default delivery options and each
 * profile's masters rules,
 * kept in `<dataDir>/settings.json` (atomic writes). Missing or out-of-range values fall back to
 * the defaults, so a hand-edited file never stops the app.
 */
import { join } from 'node:path';

import { deliveryModes } from '../delivery/delivery-summary.js';
import { readJsonIfExists, writeJsonAtomic } from '../files/atomic-file.js';
import { type DeliveryRules, normalizeRules } from '../model/delivery-rules.js';
import { type DeliveryDefaults, interfaceDefaults, type Settings } from './settings.js';

export type { Settings } from './settings.js';
import { DEFAULT_CONCURRENCY } from '../storage/upload-queue.js';

export const defaultSettings: Settings = {
  concurrency: DEFAULT_CONCURRENCY,
  bandwidthLimitKiB: 0,
  defaults: interfaceDefaults,
  profileDefaults: {},
  profileRules: {},
  announceAbove: { tracks: 1_000, gib: 20 },
};

const inRange = (value: unknown, min: number, max: number, fallback: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? value
    : fallback;

const bool = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);

/** Delivery defaults with every field present, `fallback`'s where missing or wrong. */
function normalizeDefaults(raw: unknown, fallback: DeliveryDefaults): DeliveryDefaults {
  const d = (raw && typeof raw === 'object' ? raw : {}) as Partial<
    Record<keyof DeliveryDefaults, unknown>
  >;
  return {
    mode: deliveryModes.includes(d.mode as DeliveryDefaults['mode'])
      ? (d.mode as DeliveryDefaults['mode'])
      : fallback.mode,
    overwrite_audio_file: bool(d.overwrite_audio_file, fallback.overwrite_audio_file),
    delete_delivered_file: bool(d.delete_delivered_file, fallback.delete_delivered_file),
  };
}

/** Settings with every field present and in range. */
export function normalizeSettings(raw: unknown): Settings {
  const given = (raw ?? {}) as Partial<Record<keyof Settings, unknown>> & {
    announceAbove?: Partial<Settings['announceAbove']>;
  };
  const defaults = normalizeDefaults(given.defaults, defaultSettings.defaults);
  const saved =
    given.profileDefaults &&
    typeof given.profileDefaults === 'object' &&
    !Array.isArray(given.profileDefaults)
      ? Object.entries(given.profileDefaults as Record<string, unknown>).slice(0, 500)
      : [];
  return {
    concurrency: inRange(given.concurrency, 1, 64, defaultSettings.concurrency),
    bandwidthLimitKiB: inRange(given.bandwidthLimitKiB, 0, 10_000_000, 0),
    defaults,
    profileDefaults: Object.fromEntries(
      saved.map(([name, value]) => [name, normalizeDefaults(value, defaults)]),
    ),
    profileRules: Object.fromEntries(
      (given.profileRules &&
      typeof given.profileRules === 'object' &&
      !Array.isArray(given.profileRules)
        ? Object.entries(given.profileRules as Record<string, unknown>).slice(0, 500)
        : []
      ).map(([name, value]) => [name, normalizeRules(value)]),
    ),
    announceAbove: {
      tracks: inRange(given.announceAbove?.tracks, 1, 100_000_000, 1_000),
      gib: inRange(given.announceAbove?.gib, 1, 1_000_000, 20),
    },
  };
}

/** Reads and writes `settings.json` under the data directory. */
export class SettingsStore {
  readonly file: string;
  /** Changes in this process run one after another, so none is lost to another's write. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.file = join(dataDir, 'settings.json');
  }

  /** The current settings (defaults when the file is missing). */
  async get(): Promise<Settings> {
    return normalizeSettings(await readJsonIfExists<unknown>(this.file));
  }

  /** Merges a change into the settings, writes them atomically and returns the result. */
  async set(
    change: Partial<Omit<Settings, 'defaults' | 'profileDefaults' | 'profileRules'>> & {
      defaults?: Partial<Settings['defaults']>;
      /** Saves (or, with null, forgets) one profile's delivery defaults. */
      profileDefaults?: { profile: string; defaults: DeliveryDefaults | null };
      /** Saves (or, with null, resets to the defaults) one profile's masters rules. */
      profileRules?: { profile: string; rules: DeliveryRules | null };
    },
  ): Promise<Settings> {
    const next = this.#queue.then(() => this.#apply(change));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #apply(change: Parameters<SettingsStore['set']>[0]): Promise<Settings> {
    const current = await this.get();
    const profileDefaults = { ...current.profileDefaults };
    if (change.profileDefaults) {
      const { profile, defaults } = change.profileDefaults;
      if (defaults) profileDefaults[profile] = defaults;
      else delete profileDefaults[profile];
    }
    const profileRules = { ...current.profileRules };
    if (change.profileRules) {
      const { profile, rules } = change.profileRules;
      if (rules) profileRules[profile] = rules;
      else delete profileRules[profile];
    }
    const next = normalizeSettings({
      ...current,
      ...change,
      defaults: { ...current.defaults, ...change.defaults },
      profileDefaults,
      profileRules,
    });
    await writeJsonAtomic(this.file, next);
    return next;
  }
}

/** The uploader options the settings stand for. */
export function uploadOptionsOf(settings: Settings): {
  concurrency: number;
  bytesPerSecond?: number;
} {
  return {
    concurrency: settings.concurrency,
    ...(settings.bandwidthLimitKiB > 0
      ? { bytesPerSecond: settings.bandwidthLimitKiB * 1024 }
      : {}),
  };
}
