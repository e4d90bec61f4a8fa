/** The names of the environment variables a publish entry refers to (`${env.NAME}`). */
export function envNamesOf(entry: unknown): string[];
/** The publish entries whose variables are all set in `env`, or null for none. */
export function releaseFeeds<T>(
  publish: T[] | T | null | undefined,
  env: Record<string, string | undefined>,
): T[] | null;
