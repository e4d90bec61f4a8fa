/**
 * The hashing threads start with the first hash, not with the pool: a delivery of small planned
 * files (their MD5 is the plan's) keeps its upload queue, and with it its pool, to the end, and
 * each idle thread held some 9 MiB of RSS. Threads are counted by their ids, which a process
 * hands out in sequence: a probe thread's id says how many were started since the last probe.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

import { describe, expect, it } from 'vitest';

import { HashPool, sharedBuffer } from '../../../src-main/core/storage/file-checksum.js';

async function probe(): Promise<number> {
  const worker = new Worker('', { eval: true });
  const id = worker.threadId;
  await worker.terminate();
  return id;
}

describe('HashPool', () => {
  it('starts its threads with the first hash, and hashes as before', async () => {
    const before = await probe();
    const pool = new HashPool(2);
    expect(await probe(), 'no thread started by the pool itself').toBe(before + 1);
    const bytes = sharedBuffer(1000).fill(7);
    const md5 = await pool.md5(bytes);
    expect(md5.toString('hex')).toBe(createHash('md5').update(bytes).digest('hex'));
    const session = pool.session();
    await pool.update(session, bytes);
    expect((await pool.final(session)).toString('hex')).toBe(md5.toString('hex'));
    const started = (await probe()) - before - 2;
    expect(started, 'its two threads, started once').toBe(2);
    await pool.close();
  });

  it('closes without ever starting a thread', async () => {
    const before = await probe();
    await new HashPool(2).close();
    expect(await probe()).toBe(before + 1);
  });
});
