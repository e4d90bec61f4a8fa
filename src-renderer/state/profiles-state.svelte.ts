import type {
  ConnectionCheck,
  CourierApi,
  ProfileSummary,
  RequestOf,
} from '../../src-main/ipc/contract.js';

/** A profile being edited: the saved fields plus secrets typed in (write-only). */
export type ProfileDraft = RequestOf<'saveProfile'>['profile'];

/** An empty profile for "Connect your account". */
export function emptyProfile(): ProfileDraft {
  return {
    name: '',
    environment: 'staging',
    base_url: 'https://',
    client_id: '',
    bucket: { bucket_name: '', bucket_region: '', access_key_id: '' },
    catalogs: [],
  };
}

/** Profiles, the active one (kept across restarts) and the last connection test. */
export class ProfilesState {
  profiles = $state.raw<ProfileSummary[]>([]);
  secretStorage = $state<'keychain' | 'memory'>('keychain');
  /** Profiles of profiles.json that can't be used as written (edited by hand), and why. */
  invalid = $state.raw<Array<{ name: string; message: string }>>([]);
  activeName = $state<string | null>(null);
  loaded = $state(false);
  busy = $state(false);
  error = $state('');
  testing = $state(false);
  test = $state.raw<{ profile: string; ok: boolean; checks: ConnectionCheck[] } | null>(null);

  readonly active = $derived(this.profiles.find((p) => p.name === this.activeName) ?? null);

  constructor(private readonly api: CourierApi) {}

  /** Reads the profiles (main creates the Sandbox profile on first run). */
  async load(): Promise<void> {
    const result = await this.api.listProfiles({});
    this.loaded = true;
    if (!result.ok) {
      this.error = result.error.message;
      return;
    }
    this.error = '';
    this.profiles = result.value.profiles;
    this.secretStorage = result.value.secretStorage;
    this.invalid = result.value.invalid;
    this.activeName = result.value.active;
  }

  /**
   * Makes a profile the one every screen works with. Main keeps the choice, so it survives a
   * restart and is the same in every window (and in the browser host, whatever its port).
   */
  async use(name: string | null): Promise<void> {
    const previous = this.activeName;
    this.activeName = name;
    const result = await this.api.useProfile({ name });
    if (!result.ok) {
      this.activeName = previous;
      this.error = result.error.message;
    }
  }

  /** Saves a profile; secrets left empty keep what the keychain has. */
  async save(
    profile: ProfileDraft,
    secrets: { client_secret?: string; secret_access_key?: string },
  ): Promise<boolean> {
    this.busy = true;
    const given = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v));
    const result = await this.api.saveProfile({
      profile,
      ...(Object.keys(given).length ? { secrets: given } : {}),
    });
    this.busy = false;
    if (!result.ok) {
      this.error = result.error.message;
      return false;
    }
    this.error = '';
    await this.load();
    return true;
  }

  /** Removes a profile and its secrets. */
  async remove(name: string): Promise<void> {
    const result = await this.api.removeProfile({ name });
    if (!result.ok) this.error = result.error.message;
    // Main makes none active when the active profile is removed.
    await this.load();
  }

  /** Runs "Test connection": token, tags, bucket, each with its result and hint. */
  async runTest(name: string): Promise<void> {
    this.testing = true;
    this.test = null;
    const result = await this.api.testProfile({ name });
    this.testing = false;
    if (result.ok) this.test = result.value;
    else this.error = result.error.message;
  }

  /** Keeps secrets in memory for this session only (no keychain). */
  async useSessionSecrets(): Promise<void> {
    const result = await this.api.useSessionSecrets({});
    if (result.ok) this.secretStorage = 'memory';
  }
}
