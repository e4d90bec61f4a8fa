import { dataDir } from './data-dir.js';
import { FileGrants } from './files/file-grants.js';

/** The core services one running door (app, browser host, CLI) shares across its requests. */
export interface CoreServices {
  dataDir: string;
  grants: FileGrants;
}

/** Creates the services for this process, rooted at the data directory. */
export function createServices(env: NodeJS.ProcessEnv = process.env): CoreServices {
  return { dataDir: dataDir(env), grants: new FileGrants() };
}
