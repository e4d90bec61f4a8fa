import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The cast-rule messages ESLint reports for `code` as if it lived at `filePath`. */
async function castErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-syntax')
    .map((message) => message.message);
}

const header = "import type { CourierApi } from '../../src-main/ipc/contract.js';\n";

// The first lint loads the whole config (typescript-eslint, svelte): slow on a busy machine.
describe('lint: tests fake the door without casting to the contract', { timeout: 60_000 }, () => {
  it('refuses `as unknown as CourierApi` in a renderer test', async () => {
    const code = `${header}export const api = { listTags: 1 } as unknown as CourierApi;\n`;
    expect(await castErrors('src-renderer/views/TagsView.svelte.test.ts', code)).toEqual([
      expect.stringMatching(/fakeDoor\(\)/),
    ]);
  });

  it('refuses a cast to an intersection or a part of the contract, and the <CourierApi> form', async () => {
    const intersection = `${header}declare const x: unknown;\nexport const api = x as CourierApi & Record<string, unknown>;\n`;
    const partial = `${header}declare const x: unknown;\nexport const api = x as Partial<CourierApi>;\n`;
    const angle = `${header}declare const x: unknown;\nexport const api = <CourierApi>x;\n`;
    expect(await castErrors('test/unit/electron/preload.test.ts', intersection)).toHaveLength(1);
    expect(await castErrors('test/fakes/courier-door.ts', partial)).toHaveLength(1);
    expect(await castErrors('test/unit/electron/preload.test.ts', angle)).toHaveLength(1);
  });

  it('lets a test type a value as the contract, and production build it from `operations`', async () => {
    const typed = `${header}import { fakeDoor } from '../../test/fakes/courier-door.js';\nexport const api: CourierApi = fakeDoor();\n`;
    const built = `${header}const api: Record<string, unknown> = {};\nexport const door = api as CourierApi;\n`;
    expect(await castErrors('src-renderer/state/tags-state.svelte.test.ts', typed)).toEqual([]);
    expect(await castErrors('src-renderer/lib/bridge.ts', built)).toEqual([]);
  });
});
