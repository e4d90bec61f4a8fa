import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished `courier` process left behind. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `courier ARGS` from the sources as its own process, the way a scheduler would. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/courier.mjs', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    // A command that never reads its input exits before the write lands: not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
