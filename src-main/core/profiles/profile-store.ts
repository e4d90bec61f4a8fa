import { join } from 'node:path';

import { CourierError } from '../errors.js';
import { readJsonIfExists, writeJsonAtomic } from '../files/atomic-file.js';
import { redactor } from '../log.js';
import {
  SECRET_ENV,
  secretFromEnv,
  type SecretName,
  type SecretStore,
} from '../secrets/secret-store.js';
import { parseProfile, type Profile, type ProfileInput } from './profile.js';
import { describeBinding, secretBinding, secretLabels } from './secret-binding.js';

interface ProfilesFile {
  version: 1;
  /** As written: each is checked when read, and one that fails is kept as it is, unused. */
  profiles: unknown[];
  /** The profile the app works with, kept here so every window and host shows the same one. */
  active?: string;
}

const SECRET_NAMES: SecretName[] = ['client_secret', 'secret_access_key'];

/** Whether each secret of a profile is set: all the renderer is ever told about secrets. */
export type SecretStatus = Record<SecretName, boolean> & {
  /** Why the keychain could not be read (then the secrets count as not set). */
  keychain?: string;
};

/** A profile in profiles.json that can't be used as written, and why. */
export interface InvalidProfile {
  name: string;
  message: string;
}

/** A secret as the secret store keeps it: the value and what it is bound to (`secret-binding.ts`). */
interface StoredSecret {
  secret: string;
  /** Unset for a secret stored before secrets were bound. */
  for?: string;
}

const ENVELOPE = 'courier-secret/1';

function wrapSecret(secret: string, binding: string): string {
  return JSON.stringify({ kind: ENVELOPE, for: binding, secret });
}

function unwrapSecret(raw: string): StoredSecret {
  try {
    const value = JSON.parse(raw) as { kind?: unknown; for?: unknown; secret?: unknown };
    if (
      value?.kind === ENVELOPE &&
      typeof value.for === 'string' &&
      typeof value.secret === 'string'
    ) {
      return { secret: value.secret, for: value.for };
    }
  } catch {
    // Not ours: a secret stored before secrets were bound.
  }
  return { secret: raw };
}

/** The name a profile entry of the file gives itself, whether or not the rest is valid. */
function entryName(entry: unknown): string | undefined {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** An entry of the file checked as a profile, or why it can't be used. */
function checkEntry(entry: unknown): { profile: Profile } | { problem: InvalidProfile } {
  try {
    return { profile: parseProfile(entry) };
  } catch (error) {
    return {
      problem: { name: entryName(entry) ?? '(no name)', message: (error as Error).message },
    };
  }
}

/**
 * The user's profiles, kept in `profiles.json` in the data directory without their secrets,
 * which live in the secret store (the OS keychain) keyed by profile name, each bound to where it
 * is sent. Every profile is checked as it is read, as when it is saved: a hand-edited one that
 * fails is reported and never used.
 */
export class ProfileStore {
  readonly #file: string;
  /** Changes in this process run one after another, so none is lost. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    dataDir: string,
    public secrets: SecretStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.#file = join(dataDir, 'profiles.json');
  }

  /**
   * Switches where secrets are kept from now on — memory, when the user chose to keep them for
   * this session only because no keychain is reachable.
   */
  useSecretStore(store: SecretStore): void {
    this.secrets = store;
  }

  /** Whether the profiles file exists yet (false only before the first run saved one). */
  async exists(): Promise<boolean> {
    return (await readJsonIfExists<ProfilesFile>(this.#file)) !== undefined;
  }

  /** Every usable profile, in the order they were added. */
  async list(): Promise<Profile[]> {
    return this.#profiles(await this.#read());
  }

  /** The profiles of profiles.json that can't be used as written (edited by hand), and why. */
  async invalid(): Promise<InvalidProfile[]> {
    return (await this.#read()).profiles.flatMap((entry) => {
      const checked = checkEntry(entry);
      return 'problem' in checked ? [checked.problem] : [];
    });
  }

  /** The profile with this name; an unknown or invalid one is an error saying so. */
  async get(name: string): Promise<Profile> {
    const file = await this.#read();
    const entry = file.profiles.find((p) => entryName(p) === name);
    if (entry !== undefined) {
      const checked = checkEntry(entry);
      if ('profile' in checked) return checked.profile;
      throw new CourierError(
        'invalid_profile',
        `Profile "${name}" in ${this.#file} can't be used: ${checked.problem.message}. Save it again in Connect (or courier profile add) to fix it.`,
      );
    }
    const known =
      this.#profiles(file)
        .map((p) => p.name)
        .join(', ') || 'none yet';
    throw new CourierError('not_found', `No profile named "${name}" (profiles: ${known}).`);
  }

  /**
   * Adds a profile or replaces the one with the same name, storing the secrets given (the
   * keychain first: a profile is never saved pointing at secrets that failed to store). A
   * secret not given is kept only while the fields it is bound to are unchanged: otherwise it
   * is removed, and must be typed again for the new address.
   */
  async save(
    input: ProfileInput,
    secrets: Partial<Record<SecretName, string>> = {},
  ): Promise<Profile> {
    const profile = parseProfile(input);
    await this.#serial(async () => {
      const file = await this.#read();
      const index = file.profiles.findIndex((p) => entryName(p) === profile.name);
      const before = index >= 0 ? checkEntry(file.profiles[index]) : null;
      const previous = before && 'profile' in before ? before.profile : null;
      // The Sandbox profile's secrets come from the running sandbox, never the keychain.
      const keychainUnused = profile.sandbox && (!previous || previous.sandbox);
      for (const name of keychainUnused ? [] : SECRET_NAMES) {
        const binding = secretBinding(profile, name);
        const value = secrets[name];
        if (value !== undefined && value !== '') {
          redactor.add(value);
          await this.secrets.set(profile.name, name, wrapSecret(value, binding));
          continue;
        }
        // Unreadable (a locked keychain): `secret()` still refuses it for another address.
        const stored = await this.#stored(profile.name, name).catch(() => null);
        if (!stored || stored.for === binding) continue;
        const unboundButSame =
          stored.for === undefined && previous && secretBinding(previous, name) === binding;
        if (unboundButSame)
          await this.secrets.set(profile.name, name, wrapSecret(stored.secret, binding));
        else await this.secrets.delete(profile.name, name);
      }
      if (index >= 0) file.profiles[index] = profile;
      else file.profiles.push(profile);
      await writeJsonAtomic(this.#file, file);
    });
    return profile;
  }

  /** Removes a profile (usable or not) and its secrets (and makes none active if it was). */
  async remove(name: string): Promise<void> {
    const file = await this.#read();
    if (!file.profiles.some((p) => entryName(p) === name)) await this.get(name);
    for (const secret of SECRET_NAMES) await this.secrets.delete(name, secret);
    await this.#update((file) => {
      file.profiles = file.profiles.filter((p) => entryName(p) !== name);
      if (file.active === name) delete file.active;
    });
  }

  /** The app's active profile, if it still exists and can be used. */
  async active(): Promise<string | undefined> {
    const file = await this.#read();
    return this.#profiles(file).some((p) => p.name === file.active) ? file.active : undefined;
  }

  /** Makes a profile the app's active one (`null`: none); an unknown name is an error. */
  async setActive(name: string | null): Promise<void> {
    if (name !== null) await this.get(name);
    await this.#update((file) => {
      if (name === null) delete file.active;
      else file.active = name;
    });
  }

  /**
   * A secret of `profile`, to be sent where that profile says: from the environment when
   * `COURIER_CLIENT_SECRET` / `COURIER_SECRET_ACCESS_KEY` is set (automation), otherwise from
   * the secret store — and only when it was entered for this profile's address.
   */
  async secret(profile: Profile, name: SecretName): Promise<string> {
    const fromEnv = await secretFromEnv(this.env, name);
    if (fromEnv) {
      redactor.add(fromEnv);
      return fromEnv;
    }
    const stored = await this.#bound(profile, name);
    if (stored?.for === secretBinding(profile, name)) {
      redactor.add(stored.secret);
      return stored.secret;
    }
    if (stored) {
      const was = stored.for ? describeBinding(stored.for) : 'another address';
      throw new CourierError(
        'secret_missing',
        `The ${secretLabels[name]} of profile "${profile.name}" was entered for ${was}; Courier does not send it to ${describeBinding(secretBinding(profile, name))}. Type it again for this address (Connect in the app, or courier profile add).`,
      );
    }
    throw new CourierError(
      'secret_missing',
      `Profile "${profile.name}" has no ${name}: set it in the profile, or in ${SECRET_ENV[name]} (or ${SECRET_ENV[name]}_FILE).`,
    );
  }

  /**
   * Which secrets of a profile are set for its address, without revealing them. The Sandbox's
   * come from the running sandbox. A keychain that can't be read leaves the profile listed, its
   * secrets not set and the reason given, so the user can still save, test or switch to
   * secrets kept for this session.
   */
  async secretStatus(profile: Profile): Promise<SecretStatus> {
    if (profile.sandbox) return { client_secret: true, secret_access_key: true };
    const status: SecretStatus = { client_secret: false, secret_access_key: false };
    for (const name of SECRET_NAMES) {
      if (await secretFromEnv(this.env, name)) {
        status[name] = true;
        continue;
      }
      try {
        const stored = await this.#bound(profile, name);
        status[name] = stored?.for === secretBinding(profile, name);
      } catch (error) {
        if (!(error instanceof CourierError) || error.code !== 'keychain_unavailable') throw error;
        status.keychain = error.message;
      }
    }
    return status;
  }

  /** A stored secret of the profile named `name`, or null. */
  async #stored(profile: string, name: SecretName): Promise<StoredSecret | null> {
    const raw = await this.secrets.get(profile, name);
    return raw ? unwrapSecret(raw) : null;
  }

  /**
   * A stored secret of `profile`; one stored before secrets were bound is bound now to the
   * profile as saved, when that is the profile asked for.
   */
  async #bound(profile: Profile, name: SecretName): Promise<StoredSecret | null> {
    const stored = await this.#stored(profile.name, name);
    if (!stored || stored.for !== undefined) return stored;
    const binding = secretBinding(profile, name);
    const saved = await this.get(profile.name).catch(() => null);
    if (!saved || secretBinding(saved, name) !== binding) return stored;
    await this.secrets.set(profile.name, name, wrapSecret(stored.secret, binding));
    return { secret: stored.secret, for: binding };
  }

  #profiles(file: ProfilesFile): Profile[] {
    return file.profiles.flatMap((entry) => {
      const checked = checkEntry(entry);
      return 'profile' in checked ? [checked.profile] : [];
    });
  }

  async #read(): Promise<ProfilesFile> {
    const file = await readJsonIfExists<ProfilesFile>(this.#file);
    if (!file) return { version: 1, profiles: [] };
    if (file.version !== 1 || !Array.isArray(file.profiles)) {
      throw new CourierError(
        'corrupt',
        `${this.#file} is not a profiles file this version of Courier understands.`,
      );
    }
    return file;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #update(change: (file: ProfilesFile) => void): Promise<void> {
    return this.#serial(async () => {
      const file = await this.#read();
      change(file);
      await writeJsonAtomic(this.#file, file);
    });
  }
}
