import { describe, expect, it, vi } from 'vitest';

import { type ProgressSnapshot, ProgressTracker } from '../../../src-main/core/storage/progress.js';

describe('progress', () => {
  it('emits at most once per interval and a final snapshot on flush', () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const snapshots: ProgressSnapshot[] = [];
      const tracker = new ProgressTracker((s) => snapshots.push(s), {
        intervalMs: 100,
        now: () => now,
      });
      tracker.addFile('a', 1000);
      for (let i = 0; i < 50; i++) {
        now += 5;
        tracker.confirm('a', 10);
        vi.advanceTimersByTime(5);
      }
      expect(snapshots.length).toBeLessThanOrEqual(3);
      tracker.flush();
      expect(snapshots.at(-1)).toMatchObject({ confirmedBytes: 500, totalBytes: 1000 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('computes a moving-average rate and an ETA', () => {
    let now = 0;
    const tracker = new ProgressTracker(() => undefined, { now: () => now });
    tracker.addFile('a', 10_000);
    tracker.addFile('b', 10_000);
    tracker.sending('a', 1, 10_000);
    for (let i = 0; i < 10; i++) {
      now += 500;
      tracker.confirm(i % 2 ? 'a' : 'b', 500);
      tracker.snapshot();
    }
    const snap = tracker.snapshot();
    expect(snap.bytesPerSecond).toBeGreaterThan(800);
    expect(snap.bytesPerSecond).toBeLessThan(1200);
    expect(snap.etaSeconds).toBeGreaterThan(12);
    expect(snap.etaSeconds).toBeLessThan(20);
    expect(snap.files.a).toEqual({ confirmedBytes: 2500, size: 10_000 });
  });

  it('counts bytes already in the bucket as progress but not as throughput', () => {
    let now = 0;
    const tracker = new ProgressTracker(() => undefined, { now: () => now });
    tracker.addFile('skipped', 1_000_000);
    tracker.addFile('sent', 10_000);
    tracker.sending('a', 1, 10_000);
    tracker.snapshot();
    now += 500;
    tracker.known('skipped', 1_000_000);
    for (let i = 0; i < 8; i++) {
      now += 500;
      tracker.confirm('sent', 500);
      tracker.snapshot();
    }
    const snap = tracker.snapshot();
    expect(snap.confirmedBytes).toBe(1_004_000);
    expect(snap.bytesPerSecond).toBeGreaterThan(800);
    expect(snap.bytesPerSecond).toBeLessThan(1100);
    // 6,000 bytes left at about 1,000 per second.
    expect(snap.etaSeconds).toBeGreaterThanOrEqual(5);
    expect(snap.etaSeconds).toBeLessThanOrEqual(8);
  });

  it('takes bytes back only when told to (a failed part)', () => {
    const tracker = new ProgressTracker(() => undefined);
    tracker.addFile('a', 100);
    tracker.confirm('a', 60);
    tracker.confirm('a', -60);
    expect(tracker.snapshot().confirmedBytes).toBe(0);
  });
});
