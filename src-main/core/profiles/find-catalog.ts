/**
 * A catalog as a person names it: by its id, or by the name the profile gives it ("Main
 * Catalog", in any case). Every door that takes a catalog from the user resolves it here.
 */
import { CourierError, UsageError } from '../errors.js';
import { foldForSearch } from '../model/text-search.js';
import type { Catalog, Profile } from './profile.js';

/**
 * The profile's catalog with this id, else with this name (exactly, then in any case). A
 * CourierError `not_found` listing the profile's catalogs when none is; a UsageError when a name
 * fits several.
 */
export function findCatalog(profile: Pick<Profile, 'name' | 'catalogs'>, ref: string): Catalog {
  const { catalogs } = profile;
  const byId = catalogs.find((c) => c.id === ref);
  if (byId) return byId;
  let named = catalogs.filter((c) => c.name === ref);
  if (named.length === 0)
    named = catalogs.filter((c) => foldForSearch(c.name) === foldForSearch(ref));
  const known = catalogs.map((c) => `${c.id} (${c.name})`).join(', ') || 'none';
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new UsageError(
      `profile "${profile.name}" has ${named.length} catalogs named "${ref}"; give the id instead (${known})`,
    );
  }
  throw new CourierError(
    'not_found',
    `Profile "${profile.name}" has no catalog "${ref}" (catalogs: ${known}).`,
  );
}
