// Renders the one source image, resources/icon.svg, to the PNGs electron-builder needs:
// resources/icon.png (1024 px; electron-builder derives the macOS .icns and the Windows .ico
// from it) and resources/icons/<size>x<size>.png for Linux. The PNGs are committed, so
// packaging needs no renderer; run this after changing the SVG. Needs `rsvg-convert`
// (Debian: librsvg2-bin; macOS: brew install librsvg).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', 'resources');
const source = join(root, 'icon.svg');
const render = (size, out) =>
  execFileSync('rsvg-convert', ['-w', String(size), '-h', String(size), '-o', out, source]);

try {
  render(1024, join(root, 'icon.png'));
  mkdirSync(join(root, 'icons'), { recursive: true });
  for (const size of [16, 32, 48, 64, 128, 256, 512]) {
    render(size, join(root, 'icons', `${size}x${size}.png`));
  }
} catch (error) {
  console.error(
    `make-icons: ${error.message}\nInstall rsvg-convert (librsvg2-bin) and run it again.`,
  );
  process.exit(1);
}
console.log('make-icons: resources/icon.png and resources/icons/*.png written');
