import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';

import { ok, type ProfileList, type ProfileSummary } from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { ProfilesState } from '../state/profiles-state.svelte.js';
import ConnectView from './ConnectView.svelte';

const label: ProfileSummary = {
  name: 'Label',
  environment: 'production',
  base_url: 'https://api.example.com',
  client_id: 'client-1',
  bucket: {
    bucket_name: 'caas-label',
    bucket_region: 'eu-west-1',
    access_key_id: 'AKIAEXAMPLE',
  },
  catalogs: [{ id: 'c1', name: 'Main' }],
  sandbox: false,
  secrets: { client_secret: true, secret_access_key: true },
};

/** Main as the view sees it: the profiles it lists, and what it was asked to do. */
function main(list: Partial<ProfileList> = {}) {
  const removed: string[] = [];
  let listing: ProfileList = {
    profiles: [label],
    active: 'Label',
    secretStorage: 'keychain',
    invalid: [],
    ...list,
  };
  const api = fakeDoor({
    listProfiles: async () => ok(listing),
    removeProfile: async ({ name }) => {
      removed.push(name);
      listing = { ...listing, invalid: listing.invalid.filter((p) => p.name !== name) };
      return ok({ removed: true as const });
    },
  });
  return Object.assign(api, { removed });
}

/** The editor's note, its line breaks as spaces. */
const statusText = () => screen.getByRole('status').textContent?.replace(/\s+/g, ' ');

describe('Connect: secrets bound to where they are sent', () => {
  afterEach(cleanup);

  it('lists a hand-edited profile that cannot be used, with why, and removes it', async () => {
    const api = main({
      invalid: [
        { name: 'Old', message: 'base_url must use https (plain http only on this machine)' },
      ],
    });
    const profiles = new ProfilesState(api);
    await profiles.load();
    render(ConnectView, { profiles });
    const panel = screen.getByRole('alert', { name: "Profiles that can't be used" });
    expect(panel.textContent).toContain('Old: base_url must use https');
    await fireEvent.click(within(panel).getByRole('button', { name: 'Remove' }));
    expect(api.removed).toEqual(['Old']);
    expect(screen.queryByRole('alert', { name: "Profiles that can't be used" })).toBeNull();
  });

  it('says before saving that changing the base URL clears the client secret', async () => {
    const profiles = new ProfilesState(main());
    await profiles.load();
    render(ConnectView, { profiles });
    await fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    expect(screen.queryByRole('status')).toBeNull();
    const url = screen.getByLabelText('API base URL');
    await fireEvent.input(url, { target: { value: 'https://elsewhere.example.net' } });
    expect(statusText()).toMatch(
      /The client secret was entered for the old API base URL or client id: saving clears it/,
    );
    // Typing the secret again for the new address answers it.
    await fireEvent.input(screen.getByLabelText('Client secret'), { target: { value: 'new' } });
    expect(screen.queryByRole('status')).toBeNull();
    // Back to the address it was entered for: nothing to clear.
    await fireEvent.input(screen.getByLabelText('Client secret'), { target: { value: '' } });
    await fireEvent.input(url, { target: { value: 'https://api.example.com/' } });
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says the same of the S3 secret when the bucket endpoint changes', async () => {
    const profiles = new ProfilesState(main());
    await profiles.load();
    render(ConnectView, { profiles });
    await fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    await fireEvent.input(screen.getByLabelText('Endpoint (optional)'), {
      target: { value: 'http://127.0.0.1:9000' },
    });
    expect(statusText()).toMatch(
      /The S3 secret access key was entered for the old bucket name, region, endpoint or access key id/,
    );
  });
});
