import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';

import {
  type DeliveryPlanView,
  ok,
  type ProfileSummary,
  type RequestOf,
} from '../../src-main/ipc/contract.js';
import { libraryWith } from '../../test/fakes/fake-library.js';
import { DeliverState } from '../state/deliver-state.svelte.js';
import DeliverView from './DeliverView.svelte';

const plan: DeliveryPlanView = {
  profile: { name: 'Label Production', environment: 'production' },
  catalog: { id: 'main', name: 'Main Catalog' },
  mode: 'json',
  folder: '20261121-masters',
  files: 3,
  tracks: 3,
  bytes: 3 * 1024 * 1024,
  requests: 1,
  options: {
    ingestion_id: 'courier-20261121',
    overwrite_audio_file: true,
    delete_delivered_file: true,
    media_fetch_type: 's3',
  },
  findings: [],
  blocked: false,
  production: true,
};

const profileOf = (environment: ProfileSummary['environment']): ProfileSummary => ({
  name: environment === 'production' ? 'Label Live' : 'Label Dev',
  environment,
  base_url: 'https://api.example.com',
  client_id: 'c',
  bucket: { bucket_name: 'b', bucket_region: 'eu-west-1', access_key_id: 'k' },
  catalogs: [{ id: 'cat-42', name: 'Back Catalog' }],
  sandbox: false,
  secrets: { client_secret: true, secret_access_key: true },
});

/** The Deliver view over a fake door that records every start request. */
async function setup(
  environment: ProfileSummary['environment'],
  findings: DeliveryPlanView['findings'] = [],
) {
  const { library, api } = await libraryWith({
    'A/01.flac': { title: 'One', isrc: 'GBABC2600001' },
    'A/02.flac': { title: 'Two', isrc: 'GBABC2600002' },
    'A/03.flac': { title: 'Three', isrc: 'GBABC2600003' },
  });
  const starts: Array<RequestOf<'startDelivery'>> = [];
  api.planDelivery = async () => ok({ ...plan, findings });
  api.startDelivery = async (request) => {
    starts.push(request);
    return ok({ id: 'd1' });
  };
  const deliver = new DeliverState(api, library);
  const delivered: string[] = [];
  render(DeliverView, {
    deliver,
    profile: profileOf(environment),
    fileCount: 3,
    onjump: () => undefined,
    ondelivered: (id: string) => delivered.push(id),
  });
  await fireEvent.click(screen.getByRole('button', { name: 'Check' }));
  await screen.findByTestId('preflight');
  return { starts, delivered };
}

describe('Deliver to a production profile', () => {
  afterEach(() => cleanup());

  it('asks in a modal that states what goes where and wants the profile name typed', async () => {
    const { starts, delivered } = await setup('production');
    const deliverButton = screen.getByTestId('deliver-now');
    deliverButton.focus();
    await fireEvent.click(deliverButton);

    const dialog = screen.getByRole('alertdialog', { name: 'Deliver to production?' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    const box = within(dialog);
    expect(dialog.textContent).toContain('“Label Live”');
    expect(box.getByTestId('confirm-catalog').textContent).toBe('Back Catalog');
    expect(box.getByTestId('confirm-tracks').textContent).toBe('3 (3 file(s))');
    expect(box.getByTestId('confirm-size').textContent).toBe('3.0 MiB');
    const typed = box.getByRole('textbox', { name: 'Profile name to confirm' });
    expect(document.activeElement).toBe(typed);

    // Nothing is sent while the name is not typed exactly; Enter does nothing either.
    const confirm = box.getByRole('button', { name: 'Deliver to Label Live' });
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(typed, { target: { value: 'Label' } });
    await fireEvent.submit(typed.closest('form')!);
    expect(starts).toEqual([]);

    // Focus stays inside: Tab from the last control comes back to the first, Shift+Tab the other way.
    await fireEvent.input(typed, { target: { value: 'Label Live' } });
    expect((confirm as HTMLButtonElement).disabled).toBe(false);
    confirm.focus();
    await fireEvent.keyDown(dialog, { key: 'Tab' });
    expect(document.activeElement).toBe(typed);
    await fireEvent.keyDown(dialog, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(confirm);

    await fireEvent.click(confirm);
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({
      profile: 'Label Live',
      catalogId: 'cat-42',
      confirmProduction: true,
    });
    expect(delivered).toEqual(['d1']);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('Escape and Cancel close it without sending, and focus returns to Deliver', async () => {
    const { starts } = await setup('production');
    const deliverButton = screen.getByTestId('deliver-now');
    deliverButton.focus();
    await fireEvent.click(deliverButton);
    await fireEvent.keyDown(screen.getByRole('alertdialog'), { key: 'Escape' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(deliverButton);

    await fireEvent.click(deliverButton);
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(starts).toEqual([]);
  });

  it('delivers at once, without confirmProduction, to a development profile', async () => {
    const { starts } = await setup('development');
    await fireEvent.click(screen.getByTestId('deliver-now'));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(starts).toHaveLength(1);
    expect(starts[0]).not.toHaveProperty('confirmProduction');
  });
});

describe('the pre-flight', () => {
  afterEach(() => cleanup());

  it('shows a finding about a whole album once, under the album’s name', async () => {
    await setup('development', [
      {
        level: 'warning',
        field: 'album.upc',
        message: '1 track disagrees on UPC: 11 have 5099902988023, 1 has 12345 (10 Tide.flac)',
        album: 'Tide Tables',
      },
      { level: 'warning', field: 'title', message: 'title is missing', path: 'A/02.flac' },
    ]);
    const items = within(screen.getByTestId('preflight'))
      .getAllByRole('listitem')
      .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(items).toContain(
      "Album 'Tide Tables' [UPC]: 1 track disagrees on UPC: 11 have 5099902988023, 1 has 12345 (10 Tide.flac)",
    );
    expect(items).toContain('A/02.flac [Title]: title is missing');
  });
});
