// music-metadata builds its eleven tag mappers (every native tag name of every tag family,
// upper-cased into fresh maps) for each file it parses: about an eighth of the CPU of a scan of
// small files. The mappers hold nothing but those maps once built, so each bundle that includes
// music-metadata (the CLI and its workers, the Electron main process, the renderer and its
// workers) is given a MetadataCollector that builds them once and shares them. A music-metadata
// that no longer has the line fails the build, so the speed-up is never lost in silence.
import { readFile } from 'node:fs/promises';

const collector = /music-metadata[\\/]lib[\\/]common[\\/]MetadataCollector\.js$/;
const perFile = 'this.tagMapper = new CombinedTagMapper();';
const shared = 'this.tagMapper = sharedTagMapper ??= new CombinedTagMapper();';

/** MetadataCollector's source with one CombinedTagMapper shared by every parse. */
export function shareTagMappers(source, path) {
  if (!source.includes(perFile)) {
    throw new Error(
      `${path}: music-metadata's MetadataCollector no longer builds its tag mappers with '${perFile}'; update scripts/shared-tag-mappers.mjs`,
    );
  }
  // Same lines as the original (the declaration goes last), so source maps stay right.
  return `${source.replace(perFile, shared)}\nlet sharedTagMapper;\n`;
}

/** The esbuild plugin (scripts/courier.mjs, scripts/build-main.mjs). */
export const esbuildSharedTagMappers = {
  name: 'shared-tag-mappers',
  setup(build) {
    build.onLoad({ filter: collector }, async ({ path }) => ({
      contents: shareTagMappers(await readFile(path, 'utf8'), path),
      loader: 'js',
    }));
  },
};

/** The Vite plugin (vite.config.ts: the renderer and its workers). */
export function viteSharedTagMappers() {
  return {
    name: 'shared-tag-mappers',
    transform(code, id) {
      if (!collector.test(id.split('?')[0])) return null;
      return { code: shareTagMappers(code, id), map: null };
    },
  };
}
