import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A browser host started the way a user starts it, as its own process. */
export interface WebHostProcess {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `tsx src-main/web-host.ts` and resolves with the URL it prints. */
export async function startWebHostProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<WebHostProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/web-host.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /Open (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`web host exited (${code}): ${output}`)));
  });
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
