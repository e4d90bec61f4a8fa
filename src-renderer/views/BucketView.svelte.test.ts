import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  type BucketListingView,
  type BucketSaveResult,
  type Envelope,
  type EventPayloads,
  ok,
} from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { BucketState } from '../state/bucket-state.svelte.js';
import BucketView from './BucketView.svelte';

const KEY = 'csv_outputs/cat-1/tags-1.csv';

/** A bucket with one CSV export; saves end when the test says, as main's would. */
function door() {
  let finish: ((result: Envelope<BucketSaveResult>) => void) | undefined;
  const canceled: string[] = [];
  const listing: BucketListingView = {
    prefix: 'csv_outputs/cat-1/',
    access: 'read-only',
    folders: [],
    objects: [
      { key: KEY, size: 2048, lastModified: '2026-11-21T10:00:00.000Z', access: 'read-only' },
    ],
    truncated: false,
  };
  const api = fakeDoor({
    listBucket: async () => ok(listing),
    saveBucketObject: () =>
      new Promise<Envelope<BucketSaveResult>>((resolve) => (finish = resolve)),
    cancelBucketSave: async ({ key }) => {
      canceled.push(key);
      return ok({ canceled: true });
    },
  });
  return Object.assign(api, {
    canceled,
    progress: (payload: EventPayloads['bucket:save-progress']) =>
      api.emit('bucket:save-progress', payload),
    finish: (result: Envelope<BucketSaveResult>) => finish?.(result),
  });
}

/** Shows the Bucket view on the fake door and clicks the export's Download. */
async function download(api: ReturnType<typeof door>) {
  render(BucketView, {
    bucket: new BucketState(api),
    profile: 'Sandbox',
  });
  await fireEvent.click(await screen.findByRole('button', { name: 'Download' }));
}

describe('Bucket: downloads', () => {
  afterEach(cleanup);

  it('shows a download’s progress with a Cancel, then where the file went', async () => {
    const api = door();
    await download(api);
    api.progress({ key: KEY, receivedBytes: 1024, totalBytes: 2048 });
    const bar = await screen.findByRole('progressbar', { name: 'Downloading tags-1.csv' });
    expect(bar.getAttribute('value')).toBe('1024');
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(api.canceled).toEqual([KEY]);
    api.finish({
      ok: true,
      value: { key: KEY, outcome: 'saved', path: '/home/ana/Downloads/tags-1.csv', size: 2048 },
    });
    expect(await screen.findByText(`Saved ${KEY} to /home/ana/Downloads/tags-1.csv.`)).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('says a canceled download saved nothing, without calling it an error', async () => {
    const api = door();
    await download(api);
    api.finish({
      ok: false,
      error: {
        code: 'canceled',
        message: `The download of ${KEY} was canceled; nothing was saved.`,
      },
    });
    await screen.findByText(/was canceled; nothing was saved/);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('hands the browser host’s one-time address to the browser’s own download', async () => {
    const api = door();
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this.getAttribute('href') ?? '');
    });
    await download(api);
    api.finish({ ok: true, value: { key: KEY, outcome: 'browser', url: '/download/abc' } });
    await vi.waitFor(() => expect(clicked).toEqual(['/download/abc']));
    click.mockRestore();
  });
});
