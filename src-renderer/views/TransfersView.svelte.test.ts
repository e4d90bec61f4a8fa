import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import {
  FILES_SHOWN,
  listedFiles,
  type TransferFile,
} from '../../src-main/core/delivery/transfer-snapshot.js';
import {
  type EventName,
  type EventPayloads,
  ok,
  type RequestOf,
} from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { TransfersState } from '../state/transfers-state.svelte.js';
import TransfersView from './TransfersView.svelte';

const file = (n: number, state: TransferFile['state'] = 'queued'): TransferFile => ({
  key: `delivery/audio/d/${n}.mp3`,
  path: `${n}.mp3`,
  size: 100,
  confirmedBytes: state === 'done' ? 100 : 0,
  state,
});

const totals = {
  id: 'd1',
  label: 'd → Back Catalog',
  profile: 'Label Dev',
  catalogId: 'cat-42',
  catalogName: 'Back Catalog',
  mode: 'json' as const,
  folder: 'd',
  state: 'uploading' as const,
  phase: 'upload' as const,
  paused: false,
  finishing: 0,
  running: true,
  confirmedBytes: 0,
  totalBytes: 300,
  bytesPerSecond: 0,
  etaSeconds: null,
};

/** The files of a progress event as main lists them, with their counts. */
const listed = (files: TransferFile[]) => {
  const { files: shown, counts } = listedFiles(files);
  return { files: shown, fileCounts: counts };
};

/** Transfers over a fake door: the test pushes main's events and reads the requests made. */
function setup() {
  const retries: Array<RequestOf<'retryDelivery'>> = [];
  const pauses: string[] = [];
  const api = fakeDoor({
    async pauseDelivery({ id }) {
      pauses.push(id);
      return ok({ id, paused: true });
    },
    activeDeliveries: async () => ok({ transfers: [] }),
    unfinishedDeliveries: async () => ok({ deliveries: [] }),
    async retryDelivery(request) {
      retries.push(request);
      return ok({ id: request.id, files: request.keys?.length ?? 2 });
    },
  });
  const transfers = new TransfersState(api);
  render(TransfersView, { transfers });
  const push = async <E extends EventName>(event: E, payload: EventPayloads[E]) => {
    expect(api.listenerCount(event)).toBeGreaterThan(0);
    api.emit(event, payload);
    await tick();
  };
  return { push, retries, pauses };
}

describe('Transfers', () => {
  afterEach(() => cleanup());

  it('merges progress, keeping the files when an event does not list them, then retries failed files', async () => {
    const { push, retries } = setup();
    await push('delivery:progress', {
      ...totals,
      complete: true,
      ...listed([file(1), file(2), file(3)]),
      batches: [{ index: 0, state: 'pending', tracks: 3 }],
    });
    const transfer = within(screen.getByTestId('transfer'));
    expect(transfer.getByTestId('transfer-catalog').textContent).toContain('Back Catalog (cat-42)');

    await push('delivery:progress', {
      ...totals,
      confirmedBytes: 100,
      complete: false,
      ...listed([file(1), file(2, 'done'), file(3)]),
      batches: [],
    });
    // Only the figures changed: the files stay as listed.
    const { fileCounts } = listed([file(1), file(2, 'done'), file(3)]);
    await push('delivery:progress', {
      ...totals,
      confirmedBytes: 100,
      bytesPerSecond: 50,
      complete: false,
      fileCounts,
      batches: [],
    });
    const states = () =>
      transfer.getAllByTestId('transfer-file').map((row) =>
        [...row.querySelectorAll('td')]
          .map((td) => td.textContent?.trim())
          .filter(Boolean)
          .join(' '),
      );
    expect(states()).toEqual([
      expect.stringContaining('1.mp3 100 B queued'),
      expect.stringContaining('2.mp3 100 B done'),
      expect.stringContaining('3.mp3 100 B queued'),
    ]);

    // The run ends with two files failed: they come first, each with its reason and a Retry.
    await push('delivery:progress', {
      ...totals,
      state: 'failed',
      phase: 'done',
      running: false,
      complete: false,
      error: '2 file(s) could not be uploaded',
      ...listed([
        { ...file(1, 'failed'), error: 'AccessDenied' },
        file(2, 'done'),
        { ...file(3, 'failed'), error: 'ENOENT' },
      ]),
      batches: [],
    });
    await push('delivery:state', {
      id: 'd1',
      state: 'failed',
      paused: false,
      finishing: 0,
      running: false,
    });
    expect(states()[0]).toContain('1.mp3');
    expect(states()[0]).toContain('AccessDenied');
    expect(states()[1]).toContain('ENOENT');
    expect(states()[2]).toContain('2.mp3 100 B done');
    expect(transfer.getByTestId('transfer-files').textContent).toBe('3 file(s), 2 failed (1 done)');
    expect(transfer.queryByRole('button', { name: 'Pause' })).toBeNull();

    await fireEvent.click(transfer.getByRole('button', { name: 'Retry 3.mp3' }));
    expect(retries).toEqual([{ id: 'd1', keys: ['delivery/audio/d/3.mp3'] }]);
    await fireEvent.click(transfer.getByRole('button', { name: 'Retry failed (2)' }));
    expect(retries.at(-1)).toEqual({ id: 'd1' });
  });

  it('shows estimating… then an ETA, pausing… with the parts finishing then paused, and files done once confirmed', async () => {
    const { push, pauses } = setup();
    const MiB = 1024 * 1024;
    const big = (n: number, state: TransferFile['state'], confirmed = 0) => ({
      ...file(n, state),
      size: 8 * MiB,
      confirmedBytes: confirmed,
    });
    await push('delivery:progress', {
      ...totals,
      totalBytes: 24 * MiB,
      complete: true,
      ...listed([big(1, 'uploading'), big(2, 'uploading'), big(3, 'queued')]),
      batches: [{ index: 0, state: 'pending', tracks: 3 }],
    });
    const transfer = within(screen.getByTestId('transfer'));
    const eta = () => transfer.getByTestId('transfer-eta').textContent?.trim();
    const badge = () => transfer.getByTestId('transfer-state').textContent?.trim();
    expect(eta()).toBe('estimating…');

    // The estimator has seen enough: speed and time left; file 1 is confirmed by the bucket.
    await push('delivery:progress', {
      ...totals,
      totalBytes: 24 * MiB,
      confirmedBytes: 8 * MiB,
      bytesPerSecond: MiB,
      etaSeconds: 16,
      complete: false,
      ...listed([big(1, 'done', 8 * MiB), big(2, 'uploading'), big(3, 'queued')]),
      batches: [],
    });
    expect(eta()).toBe('1.0 MiB/s · ETA 16 s');

    await fireEvent.click(transfer.getByRole('button', { name: 'Pause' }));
    expect(pauses).toEqual(['d1']);
    const state = { id: 'd1', state: 'uploading' as const, running: true };
    await push('delivery:state', { ...state, paused: true, finishing: 2 });
    expect(badge()).toBe('pausing… (2 parts finishing)');
    expect(transfer.queryByTestId('transfer-eta')).toBeNull();
    expect(transfer.getByRole('button', { name: 'Resume' })).toBeTruthy();
    await push('delivery:state', { ...state, paused: true, finishing: 1 });
    expect(badge()).toBe('pausing… (1 part finishing)');
    await push('delivery:state', { ...state, paused: true, finishing: 0 });
    expect(badge()).toBe('paused');

    // Resumed; file 2 is verified and confirmed while its request still waits: it reads done.
    await push('delivery:state', { ...state, paused: false, finishing: 0 });
    await push('delivery:progress', {
      ...totals,
      totalBytes: 24 * MiB,
      confirmedBytes: 16 * MiB,
      complete: false,
      ...listed([big(1, 'done', 8 * MiB), big(2, 'verifying', 8 * MiB), big(3, 'queued')]),
      batches: [],
    });
    const row = (n: number) =>
      transfer
        .getAllByTestId('transfer-file')
        .find((r) => r.textContent?.includes(`${n}.mp3`))!
        .textContent?.replace(/\s+/g, ' ');
    expect(row(2)).toContain('verifying');
    await push('delivery:progress', {
      ...totals,
      totalBytes: 24 * MiB,
      confirmedBytes: 16 * MiB,
      complete: false,
      ...listed([big(1, 'done', 8 * MiB), big(2, 'done', 8 * MiB), big(3, 'queued')]),
      batches: [],
    });
    expect(row(1)).toContain('done');
    expect(row(2)).toContain('done');
    expect(row(3)).toContain('queued');
    expect(badge()).toBe('uploading');
  });

  it('lists 500 of a 100,000-file delivery, failed and in flight first, and counts them all', async () => {
    const { push } = setup();
    const files = Array.from({ length: 100_000 }, (_, i) =>
      file(i, i < 40_000 ? 'done' : i < 40_016 ? 'uploading' : 'queued'),
    );
    files[70_000] = { ...file(70_000, 'failed'), error: 'ENOENT' };
    await push('delivery:progress', {
      ...totals,
      complete: true,
      ...listed(files),
      batches: [{ index: 0, state: 'pending', tracks: 100_000 }],
    });
    const transfer = within(screen.getByTestId('transfer'));
    expect(transfer.getByTestId('transfer-files').textContent).toBe(
      '100,000 file(s), 1 failed (59,983 queued, 40,000 done, 16 uploading) · listing 500: failed and in flight first, then the next queued',
    );
    const rows = transfer.getAllByTestId('transfer-file').map((r) => r.textContent ?? '');
    expect(rows).toHaveLength(FILES_SHOWN);
    expect(rows[0]).toContain('70000.mp3');
    expect(rows[1]).toContain('40000.mp3');
    expect(rows[16]).toMatch(/^40015\.mp3.*uploading/);
    expect(rows[17]).toMatch(/^40016\.mp3.*queued/);
    expect(rows.every((r) => !r.includes(' done'))).toBe(true);
  });
});
