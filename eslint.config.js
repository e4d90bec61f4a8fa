// Lint holds the process boundaries (which code may import electron, which must stay pure)
// as well as the usual TypeScript and Svelte rules.
import { builtinModules } from 'node:module';

import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

const noElectron = {
  name: 'electron',
  message: 'Only src-main/electron/** (the shell and its preload) may import electron.',
};
const noNode = {
  group: ['node:*', ...builtinModules],
  message: 'This code also runs in the renderer: it may not import Node built-ins.',
};

/** Tests reach main through the one typed fake door; a cast would let a fake drift unseen. */
const noCourierCast = {
  selector:
    ":matches(TSAsExpression, TSTypeAssertion) > .typeAnnotation Identifier[name='CourierApi']",
  message:
    'Tests may not cast to CourierApi: fake the door with fakeDoor() (test/fakes/courier-door.ts), which the contract type-checks.',
};

/** Ways to put a string into the page as markup. */
const noMarkup = ['innerHTML', 'outerHTML', 'insertAdjacentHTML'].map((property) => ({
  property,
  message: 'Put text in the page with textContent or Svelte text, never as markup.',
}));

const noComponents = {
  group: ['**/components/**'],
  message: 'State modules may not import from components/: move what both need to state/ or lib/.',
};

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'release/', 'test/artifacts/', '.tmp-*/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    plugins: { 'simple-import-sort': simpleImportSort },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Groups: Node built-ins, packages, then our own modules; sorted within each.
      'simple-import-sort/imports': ['error', { groups: [['^node:'], ['^@?\\w'], ['^\\.']] }],
      'simple-import-sort/exports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: {
        parser: tseslint.parser,
        extraFileExtensions: ['.svelte'],
      },
    },
  },
  // Everything main-side except the Electron shell: no electron.
  {
    files: ['src-main/**/*.ts', 'scripts/**', 'test/**/*.ts'],
    ignores: ['src-main/electron/**', 'test/unit/electron/**', 'test/fakes/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
  // Tests and their fakes: no cast to the contract.
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', noCourierCast] },
  },
  // The model is bundled into the renderer: nothing from Node, nothing from electron.
  {
    files: ['src-main/core/model/**/*.ts', 'src-main/ipc/contract.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [noNode] }] },
  },
  // The renderer is sandboxed: browser globals only, no Node, no electron.
  {
    files: ['src-renderer/**/*.{ts,svelte}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [noElectron, ...nodeBuiltins], patterns: [noNode] },
      ],
      // Tag text is put in the page as text, never parsed as markup (docs/security.md).
      'no-restricted-properties': ['error', ...noMarkup],
      'svelte/no-at-html-tags': 'error',
    },
  },
  // State is what components present: it never reaches back into them.
  {
    files: ['src-renderer/state/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [noElectron, ...nodeBuiltins], patterns: [noNode, noComponents] },
      ],
    },
  },
);
