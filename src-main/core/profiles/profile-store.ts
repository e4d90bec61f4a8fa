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

interface ProfilesFile {
  version: 1;
  profiles: Profile[];
  /** The profile the app works with, kept here so every window and host shows the same one. */
  active?: string;
}

const SECRET_NAMES: SecretName[] = ['client_secret', 'secret_access_key'];

/** Whether each secret of a profile is set: all the renderer is ever told about secrets. */
export type SecretStatus = Record<SecretName, boolean>;

/**
 * The user's profiles, kept in `profiles.json` in the data directory without their secrets,
 * which live in the secret store (the OS keychain) keyed by profile name.
 */
export class ProfileStore {
  readonly #file: string;
  /** Writes in this process run one after another, so none is lost. */
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

  /** Every profile, in the order they were added. */
  async list(): Promise<Profile[]> {
    return (await this.#read()).profiles;
  }

  /** The profile with this name; an unknown name is an error listing the known ones. */
  async get(name: string): Promise<Profile> {
    const profiles = await this.list();
    const profile = profiles.find((p) => p.name === name);
    if (profile) return profile;
    const known = profiles.map((p) => p.name).join(', ') || 'none yet';
    throw new CourierError('not_found', `No profile named "${name}" (profiles: ${known}).`);
  }

  /**
   * Adds a profile or replaces the one with the same name, storing the secrets given (the
   * keychain first: a profile is never saved pointing at secrets that failed to store).
   */
  async save(
    input: ProfileInput,
    secrets: Partial<Record<SecretName, string>> = {},
  ): Promise<Profile> {
    const profile = parseProfile(input);
    for (const name of SECRET_NAMES) {
      const value = secrets[name];
      if (value !== undefined && value !== '') {
        redactor.add(value);
        await this.secrets.set(profile.name, name, value);
      }
    }
    await this.#update((file) => {
      const index = file.profiles.findIndex((p) => p.name === profile.name);
      if (index >= 0) file.profiles[index] = profile;
      else file.profiles.push(profile);
    });
    return profile;
  }

  /** Removes a profile and its secrets (and makes none active if it was). */
  async remove(name: string): Promise<void> {
    await this.get(name);
    for (const secret of SECRET_NAMES) await this.secrets.delete(name, secret);
    await this.#update((file) => {
      file.profiles = file.profiles.filter((p) => p.name !== name);
      if (file.active === name) delete file.active;
    });
  }

  /** The app's active profile, if it still exists. */
  async active(): Promise<string | undefined> {
    const file = await this.#read();
    return file.profiles.some((p) => p.name === file.active) ? file.active : undefined;
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
   * A secret of a profile: from the environment when `COURIER_CLIENT_SECRET` /
   * `COURIER_SECRET_ACCESS_KEY` is set (automation), otherwise from the secret store.
   */
  async secret(profile: string, name: SecretName): Promise<string> {
    const value = (await secretFromEnv(this.env, name)) || (await this.secrets.get(profile, name));
    if (value) {
      redactor.add(value);
      return value;
    }
    throw new CourierError(
      'secret_missing',
      `Profile "${profile}" has no ${name}: set it in the profile, or in ${SECRET_ENV[name]} (or ${SECRET_ENV[name]}_FILE).`,
    );
  }

  /** Which secrets of a profile are set, without revealing them. */
  async secretStatus(profile: string): Promise<SecretStatus> {
    const status = {} as SecretStatus;
    for (const name of SECRET_NAMES) {
      status[name] = Boolean(
        (await secretFromEnv(this.env, name)) || (await this.secrets.get(profile, name)),
      );
    }
    return status;
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

  #update(change: (file: ProfilesFile) => void): Promise<void> {
    const next = this.#queue.then(async () => {
      const file = await this.#read();
      change(file);
      await writeJsonAtomic(this.#file, file);
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
