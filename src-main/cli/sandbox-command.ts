import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { dataDir } from '../core/data-dir.js';
import { CourierError, UsageError } from '../core/errors.js';
import { connectEmbeddedSandbox } from '../core/sandbox/embedded.js';
import { faultsFromEnv, startSandbox } from '../core/sandbox/index.js';
import type { Command } from './command.js';

function port(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new UsageError(`${flag} must be a port number (0 picks a free one), not '${value}'`);
  return n;
}

function share(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(`${flag} must be a share from 0 to 1, not '${value}'`);
  return n;
}

function millis(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1)
    throw new UsageError(`${flag} must be a positive number of milliseconds, not '${value}'`);
  return n;
}

/** `courier sandbox`: runs the local service API and delivery bucket until stopped. */
export const sandboxCommand: Command = {
  summary: 'run the local service API and delivery bucket (prints one JSON line, stops on Ctrl-C)',
  usage:
    'courier sandbox [--port N] [--s3-port N] [--data DIR] [--token-ttl-ms N] [--fault-500 SHARE] ' +
    '[--fault-429 SHARE] [--fault-slow SHARE] [--slow-ms N] [--analysis-ms N] [--product-interval-ms N]',
  async run(args, io) {
    const { values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        's3-port': { type: 'string' },
        data: { type: 'string' },
        'token-ttl-ms': { type: 'string' },
        'fault-500': { type: 'string' },
        'fault-429': { type: 'string' },
        'fault-slow': { type: 'string' },
        'slow-ms': { type: 'string' },
        'analysis-ms': { type: 'string' },
        'product-interval-ms': { type: 'string' },
      },
    });
    const envFaults = faultsFromEnv(io.env);
    const envTtl = io.env.COURIER_SANDBOX_TOKEN_TTL_MS;
    const options = {
      port: port(values.port, '--port') ?? 0,
      s3Port: port(values['s3-port'], '--s3-port') ?? 0,
      tokenLifetimeMs: millis(values['token-ttl-ms'] ?? envTtl, '--token-ttl-ms'),
      faults: {
        errorRate: share(values['fault-500'], '--fault-500') ?? envFaults.errorRate,
        throttleRate: share(values['fault-429'], '--fault-429') ?? envFaults.throttleRate,
        slowRate: share(values['fault-slow'], '--fault-slow') ?? envFaults.slowRate,
        slowMs: millis(values['slow-ms'], '--slow-ms') ?? envFaults.slowMs,
      },
      timings: {
        analysisMs: millis(values['analysis-ms'], '--analysis-ms'),
        productIntervalMs: millis(values['product-interval-ms'], '--product-interval-ms'),
      },
    };
    // The default data directory's sandbox is the app's embedded one: share its claim, so the
    // app and other commands use this server instead of starting a second one on the same data.
    const sandbox = values.data
      ? await startSandbox({ ...options, dataDir: resolve(values.data) })
      : await connectEmbeddedSandbox(dataDir(io.env), options);
    if ('owned' in sandbox && !sandbox.owned) {
      throw new CourierError(
        'already_running',
        `a sandbox already runs for this data directory at ${sandbox.info.base_url} ` +
          '(another Courier process); use it, or pass --data DIR for a separate one',
      );
    }
    io.out(JSON.stringify(sandbox.info));
    await io.stopRequested;
    io.err('courier sandbox: stopping');
    await sandbox.close();
    return 0;
  },
};
