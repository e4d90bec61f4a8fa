import { describe, expect, expectTypeOf, it } from 'vitest';

import type { DeliveryEvent } from '../../../src-main/core/delivery/run-delivery.js';
import {
  createSignalSink,
  idleTransfers,
  reduceTransfer,
  type TransferEvent,
  TransferMonitor,
  type TransferSignals,
  type TransferState,
} from '../../../src-main/electron/transfer-signals.js';

const progress = (confirmedBytes: number, totalBytes: number): TransferEvent => ({
  type: 'upload',
  event: { type: 'progress', confirmedBytes, totalBytes },
});

function play(events: Array<[string, TransferEvent]>): {
  state: TransferState;
  signals: TransferSignals[];
} {
  let state = idleTransfers;
  const signals: TransferSignals[] = [];
  for (const [id, event] of events) {
    const next = reduceTransfer(state, id, `Delivery ${id}`, event);
    state = next.state;
    signals.push(next.signals);
  }
  return { state, signals };
}

describe('transfer signals', () => {
  it('accepts the delivery engine’s events as they are', () => {
    expectTypeOf<DeliveryEvent>().toExtend<TransferEvent>();
  });

  describe('reduceTransfer()', () => {
    it('shows confirmed bytes over all bytes and blocks suspension while uploading', () => {
      const { signals } = play([
        ['a', { type: 'phase', phase: 'upload' }],
        ['a', progress(25, 100)],
      ]);
      expect(signals.at(-1)).toEqual({ progress: 0.25, mode: 'normal', blocking: true });
    });

    it('adds up two deliveries running at once', () => {
      const { signals } = play([
        ['a', progress(50, 100)],
        ['b', progress(0, 300)],
      ]);
      expect(signals.at(-1)!.progress).toBe(50 / 400);
    });

    it('keeps the bar full while batches are ingested', () => {
      const { signals } = play([
        ['a', progress(90, 100)],
        ['a', { type: 'phase', phase: 'ingest' }],
      ]);
      expect(signals.at(-1)).toMatchObject({ progress: 1, blocking: true });
    });

    it('shows a paused bar and lets the machine sleep while every run is paused', () => {
      const { signals } = play([
        ['a', progress(10, 100)],
        ['a', { type: 'upload', event: { type: 'paused' } }],
      ]);
      expect(signals.at(-1)).toEqual({ progress: 0.1, mode: 'paused', blocking: false });
      const resumed = play([
        ['a', progress(10, 100)],
        ['a', { type: 'upload', event: { type: 'paused' } }],
        ['a', { type: 'upload', event: { type: 'resumed' } }],
      ]);
      expect(resumed.signals.at(-1)).toMatchObject({ mode: 'normal', blocking: true });
    });

    it('removes the bar, releases the blocker and notifies when a delivery is accepted', () => {
      const { state, signals } = play([
        ['a', progress(100, 100)],
        ['a', { type: 'batch', state: 'accepted', tracks: 25 }],
        ['a', { type: 'batch', state: 'accepted', tracks: 5 }],
        ['a', { type: 'finished', state: 'accepted' }],
      ]);
      expect(state.runs.size).toBe(0);
      expect(signals.at(-1)).toEqual({
        progress: -1,
        mode: 'normal',
        blocking: false,
        notification: {
          title: 'Delivery accepted',
          body: 'Delivery a: 30 tracks accepted by the service.',
        },
      });
    });

    it('says where to look when a delivery stops', () => {
      const { signals } = play([
        ['a', progress(1, 100)],
        ['a', { type: 'finished', state: 'failed' }],
      ]);
      expect(signals.at(-1)!.notification).toEqual({
        title: 'Delivery stopped',
        body: 'Delivery a: open History to see what failed; running it again resumes it.',
      });
    });

    it('ignores upload events it has no use for', () => {
      const { signals } = play([
        ['a', progress(1, 4)],
        ['a', { type: 'upload', event: { type: 'part-done' } }],
      ]);
      expect(signals.at(-1)).toMatchObject({ progress: 0.25 });
    });
  });

  describe('createSignalSink()', () => {
    const targets = () => {
      const calls: unknown[][] = [];
      let next = 7;
      return {
        calls,
        setProgressBar: (progress: number, mode: string) =>
          void calls.push(['bar', progress, mode]),
        startBlocker: () => (calls.push(['start']), next++),
        stopBlocker: (id: number) => void calls.push(['stop', id]),
        notify: (n: { title: string }) => void calls.push(['notify', n.title]),
      };
    };

    it('starts one blocker, stops it when nothing blocks, and redraws the bar only when it moves', () => {
      const os = targets();
      const apply = createSignalSink(os);
      apply({ progress: 0.1, mode: 'normal', blocking: true });
      apply({ progress: 0.1000001, mode: 'normal', blocking: true });
      apply({ progress: 0.5, mode: 'normal', blocking: true });
      apply({
        progress: -1,
        mode: 'normal',
        blocking: false,
        notification: { title: 'Delivery accepted', body: '' },
      });
      expect(os.calls).toEqual([
        ['start'],
        ['bar', 0.1, 'normal'],
        ['bar', 0.5, 'normal'],
        ['stop', 7],
        ['bar', -1, 'normal'],
        ['notify', 'Delivery accepted'],
      ]);
    });
  });

  describe('TransferMonitor', () => {
    it('counts active runs and stops them all on pauseAll()', async () => {
      const applied: TransferSignals[] = [];
      const monitor = new TransferMonitor((signals) => void applied.push(signals));
      const stopped: string[] = [];
      monitor.event('a', 'A', progress(1, 2));
      monitor.event('b', 'B', progress(1, 2));
      monitor.onStop('a', async () => void stopped.push('a'));
      monitor.onStop('b', async () => void stopped.push('b'));
      expect(monitor.active).toBe(2);
      await monitor.pauseAll();
      expect(stopped.sort()).toEqual(['a', 'b']);
      monitor.event('a', 'A', { type: 'finished', state: 'failed' });
      expect(monitor.active).toBe(1);
      expect(applied).toHaveLength(3);
    });

    it('stops the others when one fails to stop, then reports the failure', async () => {
      const monitor = new TransferMonitor(() => undefined);
      const stopped: string[] = [];
      monitor.event('a', 'A', progress(1, 2));
      monitor.onStop('a', async () => {
        throw new Error('disk full');
      });
      monitor.onStop('b', async () => void stopped.push('b'));
      await expect(monitor.pauseAll()).rejects.toThrow('disk full');
      expect(stopped).toEqual(['b']);
    });
  });
});
