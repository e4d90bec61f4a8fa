import { AsyncEntry } from '@napi-rs/keyring';

import { CourierError } from '../errors.js';
import type { SecretName, SecretStore } from './secret-store.js';

const SERVICE = 'Catalog Courier';

/**
 * Secrets in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret Service on
 * Linux), one entry per profile and secret. A keychain that can't be reached is a clear error
 * that names the way out: keeping secrets for this session only.
 */
export class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain';

  readonly #service: string;

  /** `service` names the keychain entries' service; tests pass their own. */
  constructor(service?: string) {
    this.#service = service || SERVICE;
  }

  async get(profile: string, name: SecretName): Promise<string | null> {
    return this.#call('read', name, (entry) => entry.getPassword(), profile);
  }

  async set(profile: string, name: SecretName, value: string): Promise<void> {
    await this.#call('store', name, (entry) => entry.setPassword(value), profile);
  }

  async delete(profile: string, name: SecretName): Promise<void> {
    await this.#call('remove', name, (entry) => entry.deletePassword(), profile);
  }

  async #call<T>(
    verb: string,
    name: SecretName,
    action: (entry: AsyncEntry) => Promise<T>,
    profile: string,
  ): Promise<T> {
    try {
      return await action(new AsyncEntry(this.#service, `${profile}/${name}`));
    } catch (error) {
      // The library's message names the platform store and why; the secret is never in it.
      throw new CourierError(
        'keychain_unavailable',
        `Could not ${verb} the ${name} of profile "${profile}" in the OS keychain ` +
          `(${(error as Error).message}). Unlock or install a keychain, or choose to keep ` +
          'secrets for this session only.',
        { cause: error },
      );
    }
  }
}
