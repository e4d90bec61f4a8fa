// `npm start`: builds the renderer and the main process, then launches Electron. Where the
// Electron binary was never downloaded, it is downloaded now; where it can't be (no network to
// GitHub, or ELECTRON_SKIP_BINARY_DOWNLOAD), it says so in one line and points to the browser host.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const missing =
  "Electron's binary is not installed here (ELECTRON_SKIP_BINARY_DOWNLOAD?): run `npm run web` to use Courier in a browser instead.";

/** Whether the electron package has its binary (its own entry would try a noisy download). */
function hasBinary() {
  const root = dirname(require.resolve('electron/package.json'));
  const pathFile = join(root, 'path.txt');
  return existsSync(pathFile) && existsSync(join(root, 'dist', readFileSync(pathFile, 'utf8')));
}

if (!hasBinary()) {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    console.error(missing);
    process.exit(1);
  }
  console.error('Downloading the Electron binary…');
  const install = join(dirname(require.resolve('electron/package.json')), 'install.js');
  const result = spawnSync(process.execPath, [install], { encoding: 'utf8' });
  if (result.status !== 0 || !hasBinary()) {
    const reason =
      `${result.stderr ?? ''}`.split('\n').find((line) => line.trim()) ?? 'no reason given';
    console.error(`${missing} (the download failed: ${reason.trim()})`);
    process.exit(1);
  }
}
const electron = require('electron');

for (const script of ['build:renderer', 'build:main']) {
  const result = spawnSync('npm', ['run', '-s', script], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const child = spawn(electron, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
