import { homedir } from 'node:os';
import { join } from 'node:path';

const FOLDER = 'Catalog Courier';

/**
 * The one directory that holds everything Courier keeps locally: `COURIER_HOME` when set,
 * otherwise the OS's per-user application-data folder (the same one Electron's `userData` uses,
 * so the app and the CLI share profiles, journals and history).
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.COURIER_HOME) return env.COURIER_HOME;
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', FOLDER);
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), FOLDER);
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), FOLDER);
}
