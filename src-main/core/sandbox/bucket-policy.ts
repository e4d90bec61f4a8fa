/**
 * Section 2.6's access table, the only places a client may write. Everything else is readable
 * (the table says read-only or states nothing) and never writable.
 */
export const WRITABLE_PREFIXES = [
  'delivery/audio/',
  'delivery/ddex/',
  'delivery/mapping/',
  'delivery/metadata/',
];

/** True when a client may create, overwrite or delete the object at this key. */
export function isWritableKey(key: string): boolean {
  return WRITABLE_PREFIXES.some((prefix) => key.startsWith(prefix) && key.length > prefix.length);
}

/** True when a key could escape s3rver's folder or alias another key on disk. */
export function isUnsafeKey(key: string): boolean {
  return (
    key.split('/').some((segment) => segment === '.' || segment === '..') || key.includes('\0')
  );
}
