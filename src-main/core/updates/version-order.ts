/**
 * Semantic versions (https://semver.org) as electron-builder writes them in a release feed and
 * package.json holds them: `1.2.3`, `1.2.3-beta.2`, an optional leading `v` and `+build`
 * metadata (ignored for order). Pure: no Node, no packages.
 */

/** A version, split for comparing. */
export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated prerelease identifiers (`beta.2` → ['beta', 2]); empty for a release. */
  prerelease: Array<string | number>;
}

const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*))*))?(?:\+[\dA-Za-z-]+(?:\.[\dA-Za-z-]+)*)?$/;

/** Reads a version, or returns null when `text` is not one. */
export function parseVersion(text: string): Version | null {
  const match = SEMVER.exec(text.trim());
  if (!match) return null;
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [
    number,
    number,
    number,
  ];
  if (![major, minor, patch].every(Number.isSafeInteger)) return null;
  const prerelease = match[4]
    ? match[4].split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part))
    : [];
  return { major, minor, patch, prerelease };
}

/**
 * Orders two versions as semver does: negative when `a` comes before `b`, 0 when they are the
 * same release, positive after. A prerelease comes before its release (`1.0.0-rc.1` < `1.0.0`);
 * numeric identifiers compare as numbers and before alphanumeric ones.
 */
export function compareVersions(a: Version, b: Version): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return b.prerelease.length - a.prerelease.length;
  }
  const length = Math.max(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < length; i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Whether `candidate` is a newer version than `current` (never a downgrade, never the same). */
export function isNewer(candidate: Version, current: Version): boolean {
  return compareVersions(candidate, current) > 0;
}

/** Writes a version back as text (without build metadata). */
export function formatVersion(version: Version): string {
  const core = `${version.major}.${version.minor}.${version.patch}`;
  return version.prerelease.length ? `${core}-${version.prerelease.join('.')}` : core;
}
