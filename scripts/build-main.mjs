// Bundles the Electron main process and the preload into dist/main (CommonJS, as Electron's
// sandboxed preload requires). Native modules and electron itself stay outside the bundle.
import { build } from 'esbuild';

import { esbuildMusicMetadataPatches } from './music-metadata-patches.mjs';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [esbuildMusicMetadataPatches],
  external: ['electron', '@napi-rs/keyring'],
};

const results = await Promise.all([
  build({
    ...common,
    // entry.ts runs the `courier` CLI when the launcher asks (cli-tool.ts), else the app.
    entryPoints: ['src-main/electron/entry.ts'],
    outfile: 'dist/main/main.cjs',
    // Core is ESM and resolves packages it loads at run time (s3rver for the embedded sandbox)
    // from `import.meta.url`; in the CommonJS bundle that is the bundle's own file URL.
    // `import.meta.resolve` is only called on the path that runs from the TypeScript sources
    // (worker-lanes.ts), never in the bundle: it is defined away, not left empty with a warning.
    define: { 'import.meta.url': '__courierBundleUrl', 'import.meta.resolve': 'undefined' },
    banner: {
      js: "const __courierBundleUrl = require('node:url').pathToFileURL(__filename).href;",
    },
  }),
  build({
    ...common,
    entryPoints: ['src-main/electron/preload.ts'],
    outfile: 'dist/main/preload.cjs',
  }),
  // The worker threads core/tags/worker-lanes.ts starts from beside the bundle (`./<name>.js`
  // from main.cjs's URL): ES modules, as the package is, so a scan in the app runs on worker
  // threads as it does in the CLI, a library's journal is folded on one, and picked files are
  // inspected on one. Electron loads worker scripts from inside app.asar.
  ...[
    'tags/scan-worker',
    'tags/duplicates-worker',
    'library/fold-worker',
    'files/inspect-worker',
  ].map((name) =>
    build({
      ...common,
      format: 'esm',
      entryPoints: [`src-main/core/${name}.ts`],
      outfile: `dist/main/${name.split('/').pop()}.js`,
      // CommonJS dependencies call require(); give the ES module one.
      banner: {
        js: "import { createRequire as __courierRequire } from 'node:module'; const require = __courierRequire(import.meta.url);",
      },
    }),
  ),
]);

// A warning here is a bundle that misbehaves at run time (an empty import.meta in the CommonJS
// main, say): the build fails rather than ship it.
const warnings = results.reduce((n, result) => n + result.warnings.length, 0);
if (warnings > 0) {
  console.error(
    `build:main: ${warnings} esbuild warning(s) above; fix them (see scripts/build-main.mjs)`,
  );
  process.exit(1);
}
