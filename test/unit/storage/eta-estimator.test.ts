import { describe, expect, it } from 'vitest';

import { EtaEstimator } from '../../../src-main/core/storage/eta-estimator.js';
import { prng } from '../../support/prng.js';

const MiB = 1024 * 1024;

/** One confirmation: when S3 acknowledged it (ms) and how many bytes. */
type Confirmation = { at: number; bytes: number };

/**
 * Replays a run's confirmations, asking for the ETA every quarter second as the UI does, and
 * returns the worst relative error between 10 % and 90 % done (against the true time left,
 * which the schedule knows), plus the first moment an ETA was given.
 */
function replay(schedule: Confirmation[], estimator = new EtaEstimator()) {
  const total = schedule.reduce((n, c) => n + c.bytes, 0);
  const end = schedule.at(-1)!.at;
  estimator.start(0);
  let confirmed = 0;
  let next = 0;
  let worst = 0;
  let firstEta: { at: number; eta: number } | undefined;
  for (let now = 0; now <= end; now += 250) {
    while (next < schedule.length && schedule[next]!.at <= now) {
      estimator.confirmed(schedule[next]!.bytes, schedule[next]!.at);
      confirmed += schedule[next]!.bytes;
      next++;
    }
    const { etaSeconds } = estimator.estimate(total - confirmed, now);
    if (etaSeconds !== null && !firstEta) firstEta = { at: now, eta: etaSeconds };
    const done = confirmed / total;
    const actual = (end - now) / 1000;
    if (done >= 0.1 && done <= 0.9 && actual >= 5) {
      expect(etaSeconds, `an ETA at ${now} ms`).not.toBeNull();
      worst = Math.max(worst, Math.abs(etaSeconds! - actual) / actual);
    }
  }
  return { worst, firstEta };
}

/** Parts of `partBytes` at a steady `bytesPerSecond`, `parallel` in flight, each landing alone. */
function steady(totalBytes: number, partBytes: number, bytesPerSecond: number, jitter = 0) {
  const random = prng(7);
  const schedule: Confirmation[] = [];
  const gap = (partBytes / bytesPerSecond) * 1000;
  for (let n = 1; n * partBytes <= totalBytes; n++) {
    schedule.push({ at: n * gap + (random() - 0.5) * jitter * gap, bytes: partBytes });
  }
  return schedule.sort((a, b) => a.at - b.at);
}

/**
 * Rounds of `parallel` parts that share the link and so all land together: nothing for a whole
 * round, then a burst. The worst case for an average over a short window.
 */
function bursts(totalBytes: number, partBytes: number, parallel: number, bytesPerSecond: number) {
  const schedule: Confirmation[] = [];
  const round = ((parallel * partBytes) / bytesPerSecond) * 1000;
  for (let r = 1, sent = 0; sent < totalBytes; r++) {
    for (let p = 0; p < parallel && sent < totalBytes; p++, sent += partBytes) {
      schedule.push({ at: r * round + p * 40, bytes: partBytes });
    }
  }
  return schedule;
}

describe('EtaEstimator', () => {
  it('converges within 20 % once 10 % is done on a steady rate', () => {
    // 2 GiB in 8 MiB parts at 10 Mbit/s, parts landing with ±40 % jitter.
    const { worst } = replay(steady(2048 * MiB, 8 * MiB, 1.25e6, 0.8));
    expect(worst).toBeLessThan(0.2);
  });

  it('converges within 20 % once 10 % is done when parts land in bursts', () => {
    // Eight 8 MiB parts share a 10 Mbit/s uplink: a burst of 64 MiB every 54 s, nothing between.
    const { worst } = replay(bursts(2048 * MiB, 8 * MiB, 8, 1.25e6));
    expect(worst).toBeLessThan(0.2);
  });

  it('converges on rounds of uneven size at a pace that varies ±15 % per round', () => {
    // (No estimate can foresee a future that varies more than that over the last rounds.)
    const random = prng(11);
    const schedule: Confirmation[] = [];
    let at = 0;
    for (let sent = 0; sent < 1024 * MiB;) {
      const parts = 1 + Math.floor(random() * 8);
      at += ((parts * 8 * MiB) / 2e6) * 1000 * (0.85 + random() * 0.3);
      for (let p = 0; p < parts; p++, sent += 8 * MiB)
        schedule.push({ at: at + p, bytes: 8 * MiB });
    }
    const { worst } = replay(schedule);
    expect(worst).toBeLessThan(0.2);
  });

  it('says nothing until it has seen enough, then no wild number', () => {
    const estimator = new EtaEstimator();
    estimator.start(0);
    // The first part lands fast (the socket buffer took it, and a small part): one sample only.
    estimator.confirmed(8 * MiB, 400);
    expect(estimator.estimate(1000 * MiB, 500).etaSeconds).toBeNull();
    // The true rate is 1 MiB/s: the next parts land a second apart each.
    for (let n = 1; n <= 8; n++) estimator.confirmed(MiB, 400 + n * 1000);
    const { etaSeconds } = estimator.estimate(1000 * MiB, 8_400);
    // 16 MiB in 8.4 s ≈ 1.9 MiB/s: an honest average of what was seen, not the first part's 20 MiB/s.
    expect(etaSeconds).toBeGreaterThan(400);
    expect(etaSeconds).toBeLessThan(1000);

    // A steady run gives its first ETA after the warm-up, already within 20 %.
    const { firstEta } = replay(steady(512 * MiB, 8 * MiB, 4e6));
    expect(firstEta!.at).toBeGreaterThanOrEqual(3_000);
    const actual = (512 * MiB) / 4e6 - firstEta!.at / 1000;
    expect(Math.abs(firstEta!.eta - actual) / actual).toBeLessThan(0.2);
  });

  it('counts down between confirmations and grows when the link stalls', () => {
    const estimator = new EtaEstimator();
    estimator.start(0);
    for (let n = 1; n <= 10; n++) estimator.confirmed(MiB, n * 1000);
    const at10 = estimator.estimate(100 * MiB, 10_000).etaSeconds!;
    expect(at10).toBe(100);
    expect(estimator.estimate(100 * MiB, 10_500).etaSeconds).toBeLessThanOrEqual(100);
    // Nothing for 10 s where a part landed every second: the rate falls, the ETA rises.
    expect(estimator.estimate(100 * MiB, 20_000).etaSeconds).toBeGreaterThan(150);
  });

  it('follows a link that slows down', () => {
    const estimator = new EtaEstimator();
    estimator.start(0);
    let at = 0;
    for (let n = 0; n < 100; n++) estimator.confirmed(MiB, (at += 500)); // 2 MiB/s
    for (let n = 0; n < 100; n++) estimator.confirmed(MiB, (at += 1000)); // then 1 MiB/s
    const rate = estimator.estimate(100 * MiB, at).bytesPerSecond;
    expect(rate / MiB).toBeGreaterThan(0.9);
    expect(rate / MiB).toBeLessThan(1.1);
  });

  it('does not count time spent paused', () => {
    const estimator = new EtaEstimator();
    estimator.start(0);
    for (let n = 1; n <= 10; n++) estimator.confirmed(MiB, n * 1000);
    const before = estimator.estimate(50 * MiB, 10_000);
    estimator.pause(10_000);
    estimator.resume(70_000);
    expect(estimator.estimate(50 * MiB, 70_000)).toEqual(before);
  });
});
