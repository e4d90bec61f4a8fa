import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The boundary-rule messages ESLint reports for `code` as if it lived at `filePath`. */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

// The first lint loads the whole config (typescript-eslint, svelte): slow on a busy machine.
describe('lint: process boundaries', { timeout: 60_000 }, () => {
  const importElectron = "import { app } from 'electron';\nexport const x = app;\n";
  const importFs = "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n";
  const importBareFs = "import fs from 'fs';\nexport const x = fs;\n";

  it('forbids electron in core', async () => {
    const errors = await boundaryErrors('src-main/core/delivery/plan.ts', importElectron);
    expect(errors).toEqual([expect.stringMatching(/Only src-main\/electron/)]);
  });

  it('forbids electron in the router, the CLI and the browser host', async () => {
    for (const file of ['src-main/ipc/router.ts', 'src-main/cli.ts', 'src-main/web-host.ts']) {
      expect(await boundaryErrors(file, importElectron)).toHaveLength(1);
    }
  });

  it('allows electron in the shell and its preload', async () => {
    expect(await boundaryErrors('src-main/electron/main.ts', importElectron)).toEqual([]);
    expect(await boundaryErrors('src-main/electron/preload.ts', importElectron)).toEqual([]);
  });

  it('forbids Node built-ins in the model, with or without the node: prefix', async () => {
    expect(await boundaryErrors('src-main/core/model/track.ts', importFs)).toHaveLength(1);
    expect(await boundaryErrors('src-main/core/model/track.ts', importBareFs)).toHaveLength(1);
  });

  it('allows Node built-ins in the rest of core', async () => {
    expect(await boundaryErrors('src-main/core/storage/journal.ts', importFs)).toEqual([]);
  });

  it('forbids Node built-ins and electron in the renderer', async () => {
    expect(await boundaryErrors('src-renderer/lib/bridge.ts', importFs)).not.toEqual([]);
    expect(await boundaryErrors('src-renderer/lib/bridge.ts', importElectron)).not.toEqual([]);
  });

  it('forbids state modules to import from components, and keeps the renderer rules there', async () => {
    const importComponent =
      "import { formatBytes } from '../components/transfers/format.js';\nexport const x = formatBytes;\n";
    expect(
      await boundaryErrors('src-renderer/state/grid-state.svelte.ts', importComponent),
    ).toEqual([expect.stringMatching(/State modules may not import from components/)]);
    expect(await boundaryErrors('src-renderer/state/columns.ts', importFs)).not.toEqual([]);
    expect(await boundaryErrors('src-renderer/views/LibraryView.ts', importComponent)).toEqual([]);
  });

  it('forbids the renderer to put text into the page as markup', async () => {
    const rules = async (filePath: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      return (result?.messages ?? []).map((message) => message.ruleId);
    };
    const set = 'export function show(el: Element, text: string) {\n  el.innerHTML = text;\n}\n';
    expect(await rules('src-renderer/components/grid/paint-cells.ts', set)).toContain(
      'no-restricted-properties',
    );
    const adjacent =
      'export const show = (el: Element, t: string) => el.insertAdjacentHTML("beforeend", t);\n';
    expect(await rules('src-renderer/lib/show.ts', adjacent)).toContain('no-restricted-properties');
    const html =
      '<script lang="ts">\n  let { text }: { text: string } = $props();\n</script>\n\n<p>{@html text}</p>\n';
    expect(await rules('src-renderer/components/Show.svelte', html)).toContain(
      'svelte/no-at-html-tags',
    );
    const text = 'export function show(el: Element, text: string) {\n  el.textContent = text;\n}\n';
    expect(await rules('src-renderer/lib/show.ts', text)).toEqual([]);
  });
});
