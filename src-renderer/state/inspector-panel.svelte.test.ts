import { describe, expect, it } from 'vitest';

import { InspectorPanel } from './inspector-panel.svelte.js';

/** A local storage of one session, shared by the panels a test makes (one per launch). */
function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

describe('InspectorPanel', () => {
  it('is open at first launch', () => {
    expect(new InspectorPanel(memoryStorage()).open).toBe(true);
  });

  it('remembers a collapsed inspector at the next launch, and an opened one again', () => {
    const storage = memoryStorage();
    const first = new InspectorPanel(storage);
    first.toggle();
    expect(first.open).toBe(false);
    expect(new InspectorPanel(storage).open).toBe(false);
    new InspectorPanel(storage).toggle();
    expect(new InspectorPanel(storage).open).toBe(true);
  });

  it('forgets a broken preference', () => {
    const storage = memoryStorage();
    storage.setItem('courier.layout.inspector', '{not json');
    expect(new InspectorPanel(storage).open).toBe(true);
  });
});
