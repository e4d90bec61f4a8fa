/**
 * The app binary's entry (dist/main/main.cjs). Started by the `courier` launcher, with
 * `--courier-cli` (cli-tool.ts), it runs the CLI and exits with the command's code before
 * anything an app does: no single-instance lock (the app may be open), no window, no services
 * of its own. Otherwise it starts the app (main.ts).
 */
import { join } from 'node:path';

import { app } from 'electron';

import { cliArguments, runCliBundle } from './cli-tool.js';

const args = cliArguments(process.argv);
if (args) {
  // A command in a terminal, not an app: no Dock icon, no GPU process.
  app.dock?.hide();
  app.disableHardwareAcceleration();
  // The bundle npm installs, beside this one in dist/ (inside app.asar once packaged), so the
  // command is the same code, data directory and keychain whichever way it was installed.
  void runCliBundle(join(__dirname, '..', 'cli'), args);
} else {
  void import('./main.js');
}
