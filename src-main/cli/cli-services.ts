import { type Connection, openConnection } from '../core/connection.js';
import { ensureSandboxProfile } from '../core/profiles/first-run.js';
import { type CoreServices, createServices } from '../core/services.js';
import type { CliIO } from './command.js';

/** The core services of one CLI run, with the first-run Sandbox profile in place. */
export async function cliServices(io: CliIO, command: string): Promise<CoreServices> {
  const services = createServices(io.env, { source: `cli ${command}`, process: 'batch' });
  await ensureSandboxProfile(services.profiles, services.dataDir);
  return services;
}

/** Runs `work` with a profile's connection open, closing it (and any sandbox it started) after. */
export async function withConnection<T>(
  services: CoreServices,
  profile: string,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await openConnection(
    services.profiles,
    services.dataDir,
    profile,
    services.timeouts,
  );
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

/** The profile a command uses: `--profile`, else $COURIER_PROFILE, else the Sandbox. */
export function profileName(option: string | undefined, env: NodeJS.ProcessEnv): string {
  return option ?? env.COURIER_PROFILE ?? 'Sandbox';
}

/** Formats rows as aligned columns for a terminal. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
