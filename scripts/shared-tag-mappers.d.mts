import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { Plugin as VitePlugin } from 'vite';

export function shareTagMappers(source: string, path: string): string;
export const esbuildSharedTagMappers: EsbuildPlugin;
export function viteSharedTagMappers(): VitePlugin;
