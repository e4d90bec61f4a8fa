import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { Plugin as VitePlugin } from 'vite';

export function patchMusicMetadata(source: string, path: string): string;
export const esbuildMusicMetadataPatches: EsbuildPlugin;
export function viteMusicMetadataPatches(): VitePlugin;
