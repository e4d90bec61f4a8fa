import { cleanup, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { ok, type RequestOf } from '../src-main/ipc/contract.js';
import { fakeDoor } from '../test/fakes/courier-door.js';
import App from './App.svelte';
import { AppState } from './state/app-state.svelte.js';

// jsdom has no layout: bind:clientHeight needs a ResizeObserver, which never fires here.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

/** A door where main reads a title from every file; the test sends main's events. */
function fakeMain() {
  const asked: Array<RequestOf<'readFileTags'>> = [];
  const api = fakeDoor({
    async readFileTags(request) {
      asked.push(request);
      return ok({
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
      });
    },
  });
  return Object.assign(api, { asked });
}

describe('App and the events main sends', () => {
  afterEach(cleanup);

  it('shows Settings when the menu’s Preferences… asks for it', async () => {
    const door = fakeMain();
    render(App, { app: new AppState(door) });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Library');
    door.emit('app:navigate', { view: 'settings' });
    await tick();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Settings');
  });

  it('adds the files a second launch opened to the library, with tags main read', async () => {
    const door = fakeMain();
    const app = new AppState(door);
    render(App, { app });
    app.show('bucket');
    door.emit('library:open-paths', {
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
