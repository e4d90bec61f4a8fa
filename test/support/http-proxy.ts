/** Starts the real HTTP proxy of http-proxy-child.mjs and collects what it saw. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./http-proxy-child.mjs', import.meta.url));

/** One request the proxy handled: a CONNECT tunnel (`url` = host:port) or a forwarded one. */
export interface ProxiedRequest {
  method: string;
  url: string;
  /** Set when the proxy refused it for want of credentials. */
  refused?: number;
}

export interface TestProxy {
  /** http://127.0.0.1:port */
  url: string;
  port: number;
  /** Every request so far, in order. */
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

export async function startHttpProxy(
  options: { hosts?: Record<string, string>; auth?: string } = {},
): Promise<TestProxy> {
  const child = spawn(process.execPath, [CHILD], {
    env: {
      ...process.env,
      COURIER_PROXY_HOSTS: Object.entries(options.hosts ?? {})
        .map(([name, address]) => `${name}=${address}`)
        .join(','),
      ...(options.auth ? { COURIER_PROXY_AUTH: options.auth } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seen: ProxiedRequest[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the test proxy exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as ProxiedRequest & { listening?: number };
      if (entry.listening) resolve(entry.listening);
      else seen.push(entry);
    });
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
