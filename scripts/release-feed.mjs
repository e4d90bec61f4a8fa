// Which of electron-builder.yml's `publish` entries a build gets: those whose `${env.NAME}`
// variables the build environment sets (electron-builder would stop at an unset one). None set:
// a build without a release feed, which the app reports as "not configured".

/** The names of the environment variables an entry refers to. */
export function envNamesOf(entry) {
  return [...JSON.stringify(entry).matchAll(/\$\{env\.(\w+)\}/g)].map((match) => match[1]);
}

/** The publish entries whose variables are all set in `env`, or null for none. */
export function releaseFeeds(publish, env) {
  const entries = (Array.isArray(publish) ? publish : publish ? [publish] : []).filter((entry) =>
    envNamesOf(entry).every((name) => Boolean(env[name])),
  );
  return entries.length > 0 ? entries : null;
}
