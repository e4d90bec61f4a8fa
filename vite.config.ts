import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

import { viteMusicMetadataPatches } from './scripts/music-metadata-patches.mjs';

// The renderer is built once and loaded by Electron (app://courier) and by the browser host over
// http://127.0.0.1, so every URL in the build is relative.
export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [svelte(), viteMusicMetadataPatches()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  worker: { format: 'es', plugins: () => [viteMusicMetadataPatches()] },
});
