// `npm run size:asar`: how big app.asar would be. electron-builder itself can't run here (no
// Electron binary), so this packs the same file set with @electron/asar: electron-builder.yml's
// `files` (dist without sourcemaps, package.json) and the production dependencies it adds, as
// `npm ls --omit=dev` lists them. Run `npm run build` first.
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import asar from '@electron/asar';

const root = fileURLToPath(new URL('..', import.meta.url));
const stage = await mkdtemp(join(tmpdir(), 'courier-asar-'));
try {
  await cp(join(root, 'dist'), join(stage, 'dist'), {
    recursive: true,
    filter: (path) => !path.endsWith('.map'),
  });
  await cp(join(root, 'package.json'), join(stage, 'package.json'));
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: root,
    encoding: 'utf8',
  });
  const modules = listed
    .split('\n')
    .filter((path) => path.includes(`${join(root, 'node_modules')}`));
  for (const path of modules) {
    await cp(path, join(stage, relative(root, path)), { recursive: true });
  }
  const out = join(stage, '..', `${relative(tmpdir(), stage)}.asar`);
  await asar.createPackage(stage, out);
  const { size } = await stat(out);
  console.log(
    `app.asar: ${(size / 1024 / 1024).toFixed(1)} MiB (${modules.length} production packages)`,
  );
  await rm(out, { force: true });
} finally {
  await rm(stage, { recursive: true, force: true });
}
