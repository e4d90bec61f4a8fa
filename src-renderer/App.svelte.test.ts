import { cleanup, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import type { CourierApi, EventName, EventPayloads } from '../src-main/ipc/contract.js';
import App from './App.svelte';
import { AppState } from './state/app-state.svelte.js';

// jsdom has no layout: bind:clientHeight needs a ResizeObserver, which never fires here.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

/** A door whose every operation fails politely, and whose events the test sends. */
function fakeDoor() {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const asked: unknown[] = [];
  const api = new Proxy({} as Record<string, unknown>, {
    get(_target, name: string) {
      if (name === 'on') {
        return (event: string, listener: (payload: unknown) => void) => {
          const set = listeners.get(event) ?? new Set();
          listeners.set(event, set);
          set.add(listener);
          return () => set.delete(listener);
        };
      }
      if (name === 'readFileTags') {
        return async (request: { files: Array<{ id: string; relativePath: string }> }) => {
          asked.push(request);
          return {
            ok: true,
            value: {
              results: request.files.map(({ id, relativePath }) => ({
                id,
                result: {
                  file: relativePath,
                  draft: {
                    file: relativePath,
                    primaryMedia: { value: relativePath, source: { kind: 'file-name' } },
                    title: { value: 'Harbour', source: { kind: 'tag', tag: 'TITLE' } },
                  },
                  findings: [],
                },
              })),
            },
          };
        };
      }
      return async () => ({ ok: false, error: { code: 'offline', message: 'not in this test' } });
    },
  }) as unknown as CourierApi;
  const send = <E extends EventName>(event: E, payload: EventPayloads[E]) => {
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };
  return { api, send, asked };
}

describe('App and the events main sends', () => {
  afterEach(cleanup);

  it('shows Settings when the menu’s Preferences… asks for it', async () => {
    const door = fakeDoor();
    render(App, { app: new AppState(door.api) });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Library');
    door.send('app:navigate', { view: 'settings' });
    await tick();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Settings');
  });

  it('adds the files a second launch opened to the library, with tags main read', async () => {
    const door = fakeDoor();
    const app = new AppState(door.api);
    render(App, { app });
    app.show('bucket');
    door.send('library:open-paths', {
      files: [
        {
          id: 'g1',
          name: '01.flac',
          relativePath: 'Low Tide/01.flac',
          size: 10,
          lastModified: 1,
        },
      ],
      refused: [],
    });
    await tick();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Library');
    await expect.poll(() => app.library.row('g1')?.status).toBe('ready');
    expect(app.library.row('g1')!.draft.title?.value).toBe('Harbour');
    expect(door.asked).toEqual([{ files: [{ id: 'g1', relativePath: 'Low Tide/01.flac' }] }]);
  });
});
