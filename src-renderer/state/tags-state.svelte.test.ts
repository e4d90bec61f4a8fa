import { describe, expect, it } from 'vitest';

import { ok, type TagList } from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { TagsState } from './tags-state.svelte.js';

const tags: TagList['tags'] = [
  { id: '1', name: 'Mellow', category: { id: 'm', name: 'Mood' } },
  { id: '2', name: 'Yellow Jazz', category: { id: 'g', name: 'Genre' } },
];

function door() {
  const asked: string[] = [];
  const api = fakeDoor({
    async listTags({ profile }) {
      asked.push(profile);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return ok({ tags: profile === 'Sandbox' ? tags : [], total: 2, complete: true });
    },
  });
  return { api, asked };
}

describe('TagsState', () => {
  it('asks the service once when the Tags view and the picker both load the same profile', async () => {
    const { api, asked } = door();
    const state = new TagsState(api);
    await Promise.all([state.load('Sandbox'), state.load('Sandbox')]);
    await state.load('Sandbox');
    expect(asked).toEqual(['Sandbox']);
    expect(state.tags).toHaveLength(2);
  });

  it('searches by name in any case, within a category when one is given', async () => {
    const { api } = door();
    const state = new TagsState(api);
    await state.load('Sandbox');
    expect(state.search('ELLOW').map((t) => t.name)).toEqual(['Mellow', 'Yellow Jazz']);
    expect(state.search('ellow', 'Genre').map((t) => t.name)).toEqual(['Yellow Jazz']);
    state.query = 'mel';
    expect(state.matches.map((t) => t.name)).toEqual(['Mellow']);
  });

  it('keeps the lexicology of the profile chosen last when an older load answers late', async () => {
    // Answers are released by the test, the older one last.
    const answers = new Map<string, () => void>();
    const api = fakeDoor({
      async listTags({ profile }) {
        await new Promise<void>((resolve) => answers.set(profile, resolve));
        return ok({ tags: profile === 'Sandbox' ? tags : [], total: 0, complete: true });
      },
    });
    const state = new TagsState(api);
    const first = state.load('Sandbox');
    const second = state.load('Other');
    answers.get('Other')!();
    await second;
    answers.get('Sandbox')!();
    await first;
    expect(state.profile).toBe('Other');
    expect(state.tags).toEqual([]);
    expect(state.loading).toBe(false);
  });
});
