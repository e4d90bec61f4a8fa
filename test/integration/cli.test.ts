import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

import { runCli } from '../support/run-cli.js';

const packageJson = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };

describe('courier', () => {
  it('prints only the version for `npm run -s courier -- --version`', async () => {
    const { stdout } = await promisify(execFile)('npm', [
      'run',
      '-s',
      'courier',
      '--',
      '--version',
    ]);
    expect(stdout).toBe(`${packageJson.version}\n`);
  });

  it('lists its commands and options for --help, exit 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Catalog Courier \d+\.\d+\.\d+/);
    expect(run.stdout).toContain('Usage: courier <command> [options]');
    expect(run.stdout).toContain('--version');
  });

  it('answers an unknown command with one line on stderr and exit 2', async () => {
    const run = await runCli(['deliverr']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      "courier: unknown command 'deliverr' (see courier --help)",
    ]);
  });

  it('shows the help with a usage exit code when called with nothing', async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Commands:');
  });
});
