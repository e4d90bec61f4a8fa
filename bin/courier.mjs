#!/usr/bin/env node
// The installed `courier` (package.json "bin"): runs the bundle `npm run build` put in dist/cli,
// so an installed package needs Node.js and its runtime dependencies only. In a source
// checkout, `npm run -s courier --` builds from the sources instead.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/cli/cli.js', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write(
    'courier: the built command is missing (dist/cli): run `npm run build`, or `npm run -s courier --` in a source checkout\n',
  );
  process.exit(1);
}
const cli = await import(bundle.href);
cli.runAsProcess();
