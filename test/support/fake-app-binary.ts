/**
 * Plays the packaged app's binary where Electron can't run (no binary here): it does what
 * src-main/electron/entry.ts does before any Electron call matters — started with the CLI
 * marker, it runs the prebuilt CLI bundle (`FAKE_APP_BUNDLE`, dist/cli by default) through the
 * same cli-tool.ts functions; otherwise it says the app would have started, and exits 99.
 */
import { fileURLToPath } from 'node:url';

import { cliArguments, runCliBundle } from '../../src-main/electron/cli-tool.js';

const args = cliArguments(process.argv);
if (args) {
  await runCliBundle(
    process.env.FAKE_APP_BUNDLE ?? fileURLToPath(new URL('../../dist/cli', import.meta.url)),
    args,
  );
} else {
  process.stdout.write('the app would start\n');
  process.exit(99);
}
