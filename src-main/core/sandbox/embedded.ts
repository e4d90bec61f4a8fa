/**
 * The embedded sandbox: one per data directory, shared by every Courier process on it. The
 * first process that needs it starts it in-process and records where it listens in
 * `sandbox/running.json`; the others (the CLI while the app runs, say) use that one, because
 * two servers on one data directory would overwrite each other's entries.
 */
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { writeJsonAtomic } from '../files/atomic-file.js';
import { type SandboxInfo, type SandboxOptions, startSandbox } from './index.js';

/** A sandbox this process can talk to, started here or by another process. */
export interface EmbeddedSandbox {
  info: SandboxInfo;
  /** Whether this process runs it (and stops it on close). */
  owned: boolean;
  close(): Promise<void>;
}

interface RunningFile {
  pid: number;
  /** Absent while the owning process is still starting the sandbox. */
  info?: SandboxInfo;
}

/** How long to wait for another process that is starting the sandbox. */
const STARTUP_WAIT_MS = 30_000;

/** The sandbox's data directory inside Courier's data directory. */
export function sandboxDir(dataDir: string): string {
  return join(dataDir, 'sandbox');
}

/** Connects to the data directory's running sandbox, starting it here when none runs. */
export async function connectEmbeddedSandbox(
  dataDir: string,
  options: Omit<SandboxOptions, 'dataDir'> = {},
): Promise<EmbeddedSandbox> {
  const dir = sandboxDir(dataDir);
  await mkdir(dir, { recursive: true });
  const marker = join(dir, 'running.json');
  const deadline = Date.now() + STARTUP_WAIT_MS;
  while (Date.now() < deadline) {
    const found = await readRunning(marker);
    const running = typeof found === 'object' ? found : null;
    if (running?.info && (await answers(running))) {
      return { info: running.info, owned: false, close: async () => undefined };
    }
    if (found === 'partial' || (running && !running.info && isAlive(running.pid))) {
      // Another process claimed the directory and is starting the sandbox: wait for it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (found) await rm(marker, { force: true }); // left by a process that died
    // Claim the directory before starting: of two processes racing here, one wins.
    const claim = await open(marker, 'wx').catch(() => null);
    if (!claim) continue;
    try {
      await claim.writeFile(JSON.stringify({ pid: process.pid }));
      await claim.sync();
      await claim.close();
      const sandbox = await startSandbox({ ...options, dataDir: dir });
      await writeJsonAtomic(marker, { pid: process.pid, info: sandbox.info });
      return {
        info: sandbox.info,
        owned: true,
        async close() {
          await sandbox.close();
          await rm(marker, { force: true });
        },
      };
    } catch (error) {
      await claim.close().catch(() => undefined);
      await rm(marker, { force: true });
      throw error;
    }
  }
  throw new Error(`Could not start or reach the sandbox in ${dir}; remove ${marker} and retry.`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

async function readRunning(path: string): Promise<RunningFile | 'partial' | 'debris' | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as RunningFile;
    return typeof parsed?.pid === 'number' ? parsed : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // A claim being written this instant reads as empty; one that stays unreadable is debris.
    const info = await stat(path).catch(() => null);
    return info && Date.now() - info.mtimeMs < 5000 ? 'partial' : 'debris';
  }
}

async function answers(running: RunningFile): Promise<boolean> {
  if (!running.info || !isAlive(running.pid)) return false;
  try {
    await fetch(`${running.info.base_url}/lexicology/tags`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}
