#!/usr/bin/env node
// `courier` from the sources: bundles src-main/cli.ts (and its worker threads) with esbuild
// the first time and whenever a source file changes, then runs the bundle in this process.
// Running TypeScript through tsx instead costs about a third more CPU on a big `courier scan`
// (every module and every worker thread is transformed and resolved through loader hooks), and
// a second or so at each start — which scheduled deliveries and the tests pay on every run.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, 'node_modules', '.cache', 'courier-cli');

/** A stamp of every input: a build is reused while no source, dependency or this file changed. */
function stamp() {
  const hash = createHash('sha1');
  const add = (path) => {
    const info = statSync(path);
    hash.update(`${relative(root, path)}:${info.size}:${info.mtimeMs}\n`);
  };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) add(path);
    }
  };
  walk(join(root, 'src-main'));
  add(join(root, 'package-lock.json'));
  add(fileURLToPath(import.meta.url));
  add(join(root, 'scripts', 'music-metadata-patches.mjs'));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Bundles the CLI into `outDir`: cli.js, its worker threads and their chunks beside it, and a
 * package.json that marks them ES modules. The checkout's `courier` builds into its cache; `npm run build:cli`
 * into dist/cli, which the installed command (bin/courier.mjs) runs.
 */
export async function buildCli(outDir, { sourcemap = true } = {}) {
  await bundleWithWorkers(outDir, join(root, 'src-main/cli.ts'), { sourcemap });
}

/**
 * Bundles `entry` (a script of Node's) as the CLI ships, into `outDir`: split, with the scan's
 * worker threads beside it (core/tags/worker-lanes.ts loads each from beside the bundle) and
 * music-metadata patched. The benchmarks measure their delivering processes built so, not run
 * through tsx. `outDir` must lie inside the checkout: dependencies left out of the bundle (the
 * keychain's native module, s3rver) are found in its node_modules.
 */
export async function bundleWithWorkers(outDir, entry, { sourcemap = true } = {}) {
  const { build } = await import('esbuild');
  const { esbuildMusicMetadataPatches } = await import('./music-metadata-patches.mjs');
  // One build of the entry and its worker threads, split: each command's module is a chunk
  // loaded when it runs, and code the entries share is one chunk, all in one folder.
  await build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap,
    logLevel: 'warning',
    plugins: [esbuildMusicMetadataPatches],
    // Native, and resolved at run time from node_modules (s3rver by the embedded sandbox).
    external: ['@napi-rs/keyring', '@20minutes/s3rver'],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __courierRequire } from 'node:module'; const require = __courierRequire(import.meta.url);",
    },
    entryPoints: [
      entry,
      ...['core/tags/scan-worker', 'core/tags/duplicates-worker', 'core/library/fold-worker'].map(
        (name) => join(root, `src-main/${name}.ts`),
      ),
    ],
    splitting: true,
    outdir: outDir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
  });
  await import('node:fs/promises').then((fs) =>
    fs.writeFile(join(outDir, 'package.json'), '{ "type": "module" }\n'),
  );
}

/** The bundle's entry for the current sources, built if needed (safe when runs race). */
export async function courierEntry() {
  const dir = join(cache, `build-${stamp()}`);
  const entry = join(dir, 'cli.js');
  try {
    statSync(entry);
    return entry;
  } catch {
    // Not built yet for these sources.
  }
  const temp = join(cache, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  await buildCli(temp);
  try {
    renameSync(temp, dir);
  } catch {
    // Another run built the same sources first: use its build.
    rmSync(temp, { recursive: true, force: true });
  }
  removeOldBuilds(dir);
  return entry;
}

/** Drops builds of older sources unused for a day (a long run may still load its worker). */
function removeOldBuilds(keep) {
  const dayAgo = Date.now() - 86_400_000;
  for (const name of readdirSync(dirname(keep))) {
    const path = join(dirname(keep), name);
    if (path === keep) continue;
    try {
      if (statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const cli = await import(pathToFileURL(await courierEntry()).href);
  cli.runAsProcess();
}
