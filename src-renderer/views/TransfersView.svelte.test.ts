import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';

import {
  type EventName,
  type EventPayloads,
  ok,
  type RequestOf,
  type TransferProgress,
} from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { TransfersState } from '../state/transfers-state.svelte.js';
import TransfersView from './TransfersView.svelte';

const file = (n: number, state: TransferProgress['files'][number]['state'] = 'queued') => ({
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

  it('merges progress that carries only the changed files, then retries failed files', async () => {
    const { push, retries } = setup();
    await push('delivery:progress', {
      ...totals,
      complete: true,
      files: [file(1), file(2), file(3)],
      batches: [{ index: 0, state: 'pending', tracks: 3 }],
    });
    const transfer = within(screen.getByTestId('transfer'));
    expect(transfer.getByTestId('transfer-catalog').textContent).toContain('Back Catalog (cat-42)');

    // Only file 2 changed: the others keep what they had.
    await push('delivery:progress', {
      ...totals,
      confirmedBytes: 100,
      complete: false,
      files: [file(2, 'done')],
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
      files: [
        { ...file(1, 'failed'), error: 'AccessDenied' },
        { ...file(3, 'failed'), error: 'ENOENT' },
      ],
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
    expect(transfer.queryByRole('button', { name: 'Pause' })).toBeNull();

    await fireEvent.click(transfer.getByRole('button', { name: 'Retry 3.mp3' }));
    expect(retries).toEqual([{ id: 'd1', keys: ['delivery/audio/d/3.mp3'] }]);
    await fireEvent.click(transfer.getByRole('button', { name: 'Retry failed (2)' }));
    expect(retries.at(-1)).toEqual({ id: 'd1' });
  });

  it('shows estimating… then an ETA, pausing… with the parts finishing then paused, and files done once confirmed', async () => {
    const { push, pauses } = setup();
    const MiB = 1024 * 1024;
    const big = (n: number, state: TransferProgress['files'][number]['state'], confirmed = 0) => ({
      ...file(n, state),
      size: 8 * MiB,
      confirmedBytes: confirmed,
    });
    await push('delivery:progress', {
      ...totals,
      totalBytes: 24 * MiB,
      complete: true,
      files: [big(1, 'uploading'), big(2, 'uploading'), big(3, 'queued')],
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
      files: [big(1, 'done', 8 * MiB)],
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
      files: [big(2, 'verifying', 8 * MiB)],
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
      files: [big(2, 'done', 8 * MiB)],
      batches: [],
    });
    expect(row(1)).toContain('done');
    expect(row(2)).toContain('done');
    expect(row(3)).toContain('queued');
    expect(badge()).toBe('uploading');
  });
});
