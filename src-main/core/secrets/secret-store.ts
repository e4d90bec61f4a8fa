/** Which secret of a profile: the API client secret or the bucket's secret access key. */
export type SecretName = 'client_secret' | 'secret_access_key';

/**
 * Where secrets live at rest. The OS keychain normally; memory when the user chose to keep
 * secrets for this session only. Secrets never go anywhere else (no file, log or argv).
 */
export interface SecretStore {
  readonly kind: 'keychain' | 'memory';
  get(profile: string, name: SecretName): Promise<string | null>;
  set(profile: string, name: SecretName, value: string): Promise<void>;
  /** Removes a secret; resolves quietly when there was none. */
  delete(profile: string, name: SecretName): Promise<void>;
}

/** The environment variables that override the keychain for one process (automation). */
export const SECRET_ENV: Record<SecretName, string> = {
  client_secret: 'COURIER_CLIENT_SECRET',
  secret_access_key: 'COURIER_SECRET_ACCESS_KEY',
};

/** Keeps secrets in this process's memory only: gone when it exits. */
export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory';
  readonly #values = new Map<string, string>();

  async get(profile: string, name: SecretName): Promise<string | null> {
    return this.#values.get(`${profile}\u0000${name}`) ?? null;
  }

  async set(profile: string, name: SecretName, value: string): Promise<void> {
    this.#values.set(`${profile}\u0000${name}`, value);
  }

  async delete(profile: string, name: SecretName): Promise<void> {
    this.#values.delete(`${profile}\u0000${name}`);
  }
}
