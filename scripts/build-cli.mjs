// `npm run build:cli`: the prebuilt `courier` bundle in dist/cli, which the installed command
// (bin/courier.mjs) runs with nothing but Node.js: no tsx or esbuild at run time. Built beside
// and then renamed into place, so a build stopped half-way never leaves a broken dist/cli.
import { randomBytes } from 'node:crypto';
import { renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildCli } from './courier.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'dist', 'cli');
const temp = join(root, 'dist', `cli-${randomBytes(4).toString('hex')}.tmp`);
try {
  await buildCli(temp, { sourcemap: false });
  await rm(target, { recursive: true, force: true });
  renameSync(temp, target);
} finally {
  await rm(temp, { recursive: true, force: true });
}
