import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { ok, type UpdateState } from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { UpdatesState } from '../state/updates-state.svelte.js';
import UpdatePrompt from './UpdatePrompt.svelte';

const offer = {
  version: '0.2.0',
  notes: 'Faster uploads.\n<img src=x onerror="alert(1)"> is shown, never run.',
};

/** A door whose update prompt starts at `initial`, recording the user's answers. */
function door(initial: UpdateState) {
  const asked: string[] = [];
  const answer = (name: string, next: UpdateState) => async () => {
    asked.push(name);
    return ok(next);
  };
  const api = fakeDoor({
    updateState: async () => ok(initial),
    downloadUpdate: answer('download', { phase: 'downloading', offer, percent: 0 }),
    postponeUpdate: answer('later', { phase: 'available', offer, later: true }),
    installUpdate: answer('install', { phase: 'ready', offer }),
    checkForUpdates: answer('check', {
      phase: 'up-to-date',
      latest: '0.1.0',
      checkedAt: '2025-11-21T12:00:00.000Z',
    }),
  });
  return Object.assign(api, { asked });
}

async function shown(initial: UpdateState, variant: 'banner' | 'settings') {
  const api = door(initial);
  const updates = new UpdatesState(api);
  await updates.load();
  render(UpdatePrompt, { updates, variant });
  return { api, updates };
}

describe('the update prompt', () => {
  afterEach(cleanup);

  it('offers a new version with its notes as text, and downloads only when asked', async () => {
    const { api, updates } = await shown({ phase: 'available', offer, later: false }, 'banner');
    expect(updates.banner).toBe(true);
    expect(screen.getByRole('status').textContent?.trim()).toBe(
      'Catalog Courier 0.2.0 is available.',
    );
    const notes = screen.getByTestId('release-notes');
    expect(notes.textContent).toBe(offer.notes);
    expect(notes.querySelector('img')).toBeNull();
    expect(api.asked).toEqual([]);

    await fireEvent.click(screen.getByRole('button', { name: 'Download and install' }));
    expect(api.asked).toEqual(['download']);
    api.emit('updates:state', { phase: 'downloading', offer, percent: 40 });
    await expect
      .poll(() =>
        screen.getByRole('progressbar', { name: 'Download of the update' }).getAttribute('value'),
      )
      .toBe('40');
    expect(screen.getByRole('status').textContent?.trim()).toBe(
      'Downloading Catalog Courier 0.2.0… 40%',
    );

    api.emit('updates:state', { phase: 'ready', offer });
    await fireEvent.click(await screen.findByRole('button', { name: 'Restart to install' }));
    expect(api.asked).toEqual(['download', 'install']);
  });

  it('goes quiet on Later: no banner, and Settings can still download it', async () => {
    const { api, updates } = await shown({ phase: 'available', offer, later: false }, 'settings');
    await fireEvent.click(screen.getByRole('button', { name: 'Later' }));
    expect(api.asked).toEqual(['later']);
    expect(updates.banner).toBe(false);
    expect(screen.queryByRole('button', { name: 'Later' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Download and install' })).toBeTruthy();
  });

  it('says when this build has no release feed, with nothing to click', async () => {
    const { updates } = await shown(
      { phase: 'not-configured', message: 'Updates: not configured in this build.' },
      'settings',
    );
    expect(screen.getByTestId('update-settings').textContent?.trim()).toBe(
      'Updates: not configured in this build.',
    );
    expect(screen.queryAllByRole('button')).toEqual([]);
    expect(updates.banner).toBe(false);
  });

  it('lets Settings check again after a failed check, and tells the reason', async () => {
    const reason =
      'The release feed at https://u.example.com/latest-linux.yml answered 404 Not Found: no release is published there yet.';
    const { api } = await shown({ phase: 'failed', during: 'check', reason }, 'settings');
    expect(screen.getByText(reason)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Check for updates' }));
    expect(api.asked).toEqual(['check']);
    expect(await screen.findByText('Catalog Courier is up to date.')).toBeTruthy();
  });
});
