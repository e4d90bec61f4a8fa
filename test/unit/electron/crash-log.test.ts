import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Logger } from '../../../src-main/core/log.js';
import { installCrashHandlers } from '../../../src-main/electron/crash-log.js';

describe('installCrashHandlers()', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'courier-crash-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const lines = async () =>
    (await readFile(join(home, 'logs', 'courier.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);

  it('writes an uncaught exception to the log, redacted, before ending the app', async () => {
    const source = new EventEmitter();
    const log = new Logger(home, 'app');
    const fatal = new Promise<Error>((resolve) => installCrashHandlers(source, log, resolve));
    source.emit('uncaughtException', new Error('token refresh failed: Bearer abc.def.ghi'));
    const error = await fatal;
    expect(error.message).toMatch(/token refresh failed/);
    const [line] = await lines();
    expect(line).toMatchObject({
      level: 'error',
      source: 'app',
      message: 'Uncaught exception in the main process',
      error: 'token refresh failed: Bearer [redacted]',
    });
    expect(line!.stack).toContain('crash-log.test.ts');
  });

  it('logs an unhandled rejection and keeps the app running', async () => {
    const source = new EventEmitter();
    const log = new Logger(home, 'app');
    let ended = false;
    installCrashHandlers(source, log, () => (ended = true));
    source.emit('unhandledRejection', 'socket hang up');
    await log.log('info', 'after');
    const all = await lines();
    expect(all.at(-2)).toMatchObject({ error: 'socket hang up' });
    expect(ended).toBe(false);
  });
});
