/**
 * The embedded sandbox: one per data directory, shared by every Courier process on it. The
 * first process that needs it starts it in-process and records where it listens in
 * `sandbox/running.json`; the others (the CLI while the app runs, say) use that one, because
 * two servers on one data directory would overwrite each other's entries.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

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
  info: SandboxInfo;
}

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
  const marker = join(dir, 'running.json');
  for (let attempt = 0; attempt < 3; attempt++) {
    const running = await readRunning(marker);
    if (running && (await answers(running))) {
      return { info: running.info, owned: false, close: async () => undefined };
    }
    if (running) await rm(marker, { force: true }); // left by a process that died
    // Claim the directory before starting: of two processes racing here, one wins.
    const claim = await open(marker, 'wx').catch(() => null);
    if (!claim) continue;
    try {
      const sandbox = await startSandbox({ ...options, dataDir: dir });
      await claim.writeFile(JSON.stringify({ pid: process.pid, info: sandbox.info }));
      await claim.sync();
      await claim.close();
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

async function readRunning(path: string): Promise<RunningFile | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as RunningFile;
    return parsed?.info?.base_url ? parsed : null;
  } catch {
    return null;
  }
}

async function answers(running: RunningFile): Promise<boolean> {
  try {
    process.kill(running.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  try {
    await fetch(`${running.info.base_url}/lexicology/tags`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}
