// `npm start`: builds the renderer and the main process, then launches Electron. Where the
// Electron binary was never downloaded, it says so in one line and points to the browser host.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let electron;
try {
  // The electron package's entry resolves to its binary, and throws when the binary is missing.
  electron = require('electron');
} catch {
  console.error(
    "Electron's binary is not installed here (ELECTRON_SKIP_BINARY_DOWNLOAD?): run `npm run web` to use Courier in a browser instead.",
  );
  process.exit(1);
}

for (const script of ['build:renderer', 'build:main']) {
  const result = spawnSync('npm', ['run', '-s', script], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const child = spawn(electron, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
