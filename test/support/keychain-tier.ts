import { type SecretService, startSecretService } from './secret-service.js';

/**
 * The keychain tier's Secret Service: started privately for the tests. Where it can't start,
 * the tier is skipped with the reason printed — except under CI=true, where that is a failure.
 */
export async function keychainTier(): Promise<SecretService | null> {
  const service = await startSecretService();
  if (!('missing' in service)) return service;
  if (process.env.CI === 'true') {
    throw new Error(`CI=true but no Secret Service could start: ${service.missing}`);
  }
  console.warn(`Skipping the keychain tests: ${service.missing} (install gnome-keyring and dbus)`);
  return null;
}
