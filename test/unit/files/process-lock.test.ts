import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { acquireProcessLock, LockHeldError } from '../../../src-main/core/files/process-lock.js';

const LOCK_MODULE = fileURLToPath(
  new URL('../../../src-main/core/files/process-lock.ts', import.meta.url),
);

/** A child process that takes the lock, says so on stdout, and holds it until killed. */
function holdInChild(dataDir: string, name: string) {
  const code = `
    const { acquireProcessLock } = await import(${JSON.stringify(LOCK_MODULE)});
    await acquireProcessLock({ dataDir: ${JSON.stringify(dataDir)}, name: ${JSON.stringify(name)},
      what: 'courier deliver', subject: 'the test' });
    process.stdout.write('held\\n');
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const held = new Promise<void>((done, fail) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && done());
    child.once('exit', (code) => fail(new Error(`the holder exited (${code})`)));
  });
  return { child, held };
}

describe('acquireProcessLock()', () => {
  it('refuses a second holder and names the first, then frees the lock on release', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-lock-'));
    const options = { dataDir, name: 'delivery:x', what: 'courier deliver', subject: 'Delivery x' };
    const lock = await acquireProcessLock(options);
    const error = await acquireProcessLock(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockHeldError);
    expect((error as LockHeldError).holder?.pid).toBe(process.pid);
    expect((error as Error).message).toMatch(
      /^Delivery x is in use by another Courier process \(pid \d+, courier deliver/,
    );
    await lock.release();
    await (await acquireProcessLock(options)).release();
  });

  it('keeps locks of other names and other data directories apart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-lock-'));
    const other = await mkdtemp(join(tmpdir(), 'courier-lock-'));
    const base = { what: 'test', subject: 'it' };
    const a = await acquireProcessLock({ ...base, dataDir, name: 'a' });
    const b = await acquireProcessLock({ ...base, dataDir, name: 'b' });
    const c = await acquireProcessLock({ ...base, dataDir: other, name: 'a' });
    await Promise.all([a.release(), b.release(), c.release()]);
  });

  it('is released by the OS when its holder is killed with SIGKILL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-lock-'));
    const { child, held } = holdInChild(dataDir, 'delivery:killed');
    await held;
    const options = { dataDir, name: 'delivery:killed', what: 'test', subject: 'Delivery killed' };
    const error = await acquireProcessLock(options).catch((e: unknown) => e);
    expect((error as LockHeldError).holder?.pid).toBe(child.pid);
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    await (await acquireProcessLock(options)).release();
  });

  it('waits for the holder with `wait`, and takes the lock once it is gone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-lock-'));
    const options = { dataDir, name: 'w', what: 'test', subject: 'W' };
    const first = await acquireProcessLock(options);
    let taken = false;
    const second = acquireProcessLock({ ...options, wait: true }).then((lock) => {
      taken = true;
      return lock;
    });
    await new Promise((done) => setTimeout(done, 600));
    expect(taken).toBe(false);
    await first.release();
    await (await second).release();
    expect(taken).toBe(true);
  });
});
