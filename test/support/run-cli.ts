import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished `courier` process left behind. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A `courier` process still running, for tests that stop it (SIGKILL) or watch its output. */
export interface CliProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Resolves when the process has exited; `signal` names what ended it, if anything did. */
  done: Promise<CliRun & { signal: NodeJS.Signals | null }>;
}

/**
 * Starts `courier ARGS` from the sources as its own process; `onLine` is called with every
 * complete line it writes to stdout or stderr, as it writes it.
 */
export function startCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    input?: string;
    timeoutMs?: number;
    onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  } = {},
): CliProcess {
  const child = spawn(process.execPath, ['scripts/courier.mjs', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 60_000,
  });
  const output = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[stream].setEncoding('utf8');
    child[stream].on('data', (chunk: string) => {
      output[stream] += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) options.onLine?.(line, stream);
    });
  }
  const done = new Promise<CliRun & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, ...output }));
  });
  // A command that never reads its input exits before the write lands: not an error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  return { child, done };
}

/** Runs `courier ARGS` from the sources as its own process, the way a scheduler would. */
export async function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const { code, stdout, stderr } = await startCli(args, options).done;
  return { code, stdout, stderr };
}
