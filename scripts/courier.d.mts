/** Types of scripts/courier.mjs for the TypeScript scripts that bundle as the CLI is bundled. */

/** Bundles the CLI (cli.js, its worker threads and their chunks) into `outDir`. */
export function buildCli(outDir: string, options?: { sourcemap?: boolean }): Promise<void>;

/** Bundles a Node script as the CLI ships, its worker threads beside it, into `outDir`. */
export function bundleWithWorkers(
  outDir: string,
  entry: string,
  options?: { sourcemap?: boolean },
): Promise<void>;

/** The CLI bundle's entry for the current sources, built if needed. */
export function courierEntry(): Promise<string>;
