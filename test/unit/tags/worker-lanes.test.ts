/**
 * How chunks of work are shared between this thread and worker threads (`runChunks`), with
 * workers that answer, fail or are slow, stood in for by objects with the workers' interface
 * (a real worker's failure cannot be provoked on demand).
 */
import { describe, expect, it } from 'vitest';

import { type ChunkWorker, runChunks } from '../../../src-main/core/tags/worker-lanes.js';

const chunks = Array.from({ length: 10 }, (_, i) => i);
const local = async (n: number) => `local ${n}`;

/** A worker that answers after `ms` (or fails, from its `failFrom`-th chunk on). */
function worker(ms: number, failFrom = Infinity): ChunkWorker<number, string, never> {
  let count = 0;
  return {
    read: (n) =>
      new Promise((resolve, reject) =>
        setTimeout(
          () => (count++ >= failFrom ? reject(new Error('worker exited')) : resolve(`worker ${n}`)),
          ms,
        ),
      ),
    stop: () => undefined,
    ref: () => undefined,
    unref: () => undefined,
  };
}

describe('runChunks()', () => {
  it('shares the chunks between this thread and the workers, outputs in chunk order', async () => {
    const by: string[] = [];
    const outputs = await runChunks({
      chunks,
      local: async (n) => new Promise<string>((r) => setTimeout(() => r(`local ${n}`), 5)),
      workers: [worker(5)],
      onChunk: (_o, lane) => by.push(lane),
    });
    expect(outputs.map((o) => o!.split(' ')[1])).toEqual(chunks.map(String));
    expect(by).toContain('main');
    expect(by).toContain('worker');
  });

  it('leaves the chunks to the workers when this thread only stands in', async () => {
    const outputs = await runChunks({ chunks, local, workers: [worker(1)], mainLane: false });
    expect(outputs).toEqual(chunks.map((n) => `worker ${n}`));
  });

  it('reads here whatever a failed worker leaves, even when this thread only stands in', async () => {
    const outputs = await runChunks({
      chunks,
      local,
      workers: [worker(1, 3), worker(1, 0)],
      mainLane: false,
    });
    expect(outputs).toHaveLength(chunks.length);
    expect(outputs.every((o) => o !== undefined)).toBe(true);
    expect(outputs.filter((o) => o!.startsWith('local')).length).toBeGreaterThan(0);
  });

  it('starts no chunk once stopped, and does not wait for chunks in workers', async () => {
    const controller = new AbortController();
    const pending = runChunks({
      chunks,
      local,
      workers: [worker(5_000)],
      mainLane: false,
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toEqual(new Array(chunks.length).fill(undefined));
  });
});
