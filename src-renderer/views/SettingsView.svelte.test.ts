import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';

import {
  type AppInfo,
  ok,
  type RequestOf,
  type SettingsView as Settings,
} from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { SettingsState } from '../state/settings-state.svelte.js';
import SettingsView from './SettingsView.svelte';

const info = (host: AppInfo['host']): AppInfo => ({
  name: 'catalog-courier',
  productName: 'Catalog Courier',
  version: '1.0.0',
  host,
  platform: 'linux',
  dataDir: '/home/ana/.courier',
});

const base: Settings = {
  concurrency: 8,
  bandwidthLimitKiB: 0,
  defaults: { mode: 'json', overwrite_audio_file: true, delete_delivered_file: true },
  profileDefaults: {},
  profileRules: {},
  announceAbove: { tracks: 1000, gib: 20 },
};

/** A door that opens folders (the app) or only says where they are (the browser host). */
function door(opens: boolean) {
  const asked: string[] = [];
  const answer = (path: string) => async () => {
    asked.push(path);
    return ok({ path, opened: opens });
  };
  const api = fakeDoor({
    getSettings: async () => ok(base),
    openLogs: answer('/home/ana/.courier/logs'),
    openDataFolder: answer('/home/ana/.courier'),
  });
  return Object.assign(api, { asked });
}

describe('Settings: the data folder and the logs', () => {
  afterEach(cleanup);

  it('has the app open them, with nothing more to say', async () => {
    const api = door(true);
    const settings = new SettingsState(api);
    render(SettingsView, { info: info('electron'), settings });
    await fireEvent.click(screen.getByRole('button', { name: 'Open logs' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Open data folder' }));
    expect(api.asked).toEqual(['/home/ana/.courier/logs', '/home/ana/.courier']);
    expect(screen.queryByTestId('folder-note')).toBeNull();
  });

  it('shows the path to open by hand in the browser host', async () => {
    const settings = new SettingsState(door(false));
    render(SettingsView, { info: info('web'), settings });
    await fireEvent.click(screen.getByRole('button', { name: 'Open logs' }));
    expect((await screen.findByTestId('folder-note')).textContent?.trim()).toBe(
      'Open /home/ana/.courier/logs in your file manager.',
    );
  });
});

describe('Settings: masters rules', () => {
  afterEach(cleanup);

  it("sets the active profile's rules, one change at a time, and resets them", async () => {
    const sent: Array<RequestOf<'setSettings'>> = [];
    const api = fakeDoor({
      getSettings: async () => ok(base),
      setSettings: async (change) => {
        sent.push(change);
        return ok(base);
      },
    });
    const settings = new SettingsState(api);
    render(SettingsView, { info: info('electron'), settings, profile: 'Label Prod' });
    const section = await screen.findByRole('region', { name: 'Masters rules' });
    expect(section.textContent).toContain('Masters rules — Label Prod');
    await fireEvent.change(screen.getByRole('combobox', { name: 'Minimum sample rate' }), {
      target: { value: '48000' },
    });
    await fireEvent.change(
      screen.getByRole('combobox', { name: 'When below the minimum sample rate' }),
      { target: { value: 'error' } },
    );
    await fireEvent.click(screen.getByRole('checkbox', { name: 'MP3' }));
    expect(sent[0]).toMatchObject({
      profileRules: { profile: 'Label Prod', rules: { minSampleRate: { hz: 48_000 } } },
    });
    expect(sent[1]).toMatchObject({
      profileRules: { profile: 'Label Prod', rules: { minSampleRate: { level: 'error' } } },
    });
    const formats = sent[2]?.profileRules?.rules?.formats?.allowed;
    expect(formats).not.toContain('mp3');
    expect(formats).toContain('flac');
    await fireEvent.click(screen.getByRole('button', { name: 'Back to the defaults' }));
    expect(sent[3]).toEqual({ profileRules: { profile: 'Label Prod', rules: null } });
  });
});
