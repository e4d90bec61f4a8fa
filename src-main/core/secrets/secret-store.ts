import { CourierError } from '../errors.js';

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

/**
 * A secret given to this process for automation: the variable itself, or `<VARIABLE>_FILE`
 * naming a file that holds it (systemd credentials, a Docker or Kubernetes secret). Courier
 * only reads that file; the trailing newline an editor leaves is ignored.
 */
export async function secretFromEnv(
  env: NodeJS.ProcessEnv,
  name: SecretName,
): Promise<string | undefined> {
  const variable = SECRET_ENV[name];
  if (env[variable]) return env[variable];
  const file = env[`${variable}_FILE`];
  if (!file) return undefined;
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CourierError(
      'secret_missing',
      `${variable}_FILE names ${file}, which cannot be read (${error.code ?? error.message}).`,
    );
  });
  return text.replace(/\r?\n$/, '') || undefined;
}

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
