import type { Command } from './command.js';

/**
 * Every `courier` command by name, in the order `courier --help` lists them. A command's module
 * is loaded only when it runs (or when `courier --help` lists them all), so `courier scan` never
 * loads the AWS SDK or the HTTP client: their parsing was a tenth of a 5,000-file scan.
 */
export const commands: Record<string, () => Promise<Command>> = {
  profile: async () => (await import('./profile-command.js')).profileCommand,
  tags: async () => (await import('./tags-command.js')).tagsCommand,
  scan: async () => (await import('./scan-command.js')).scanCommand,
  upload: async () => (await import('./upload-command.js')).uploadCommand,
  deliver: async () => (await import('./deliver-command.js')).deliverCommand,
  history: async () => (await import('./history-command.js')).historyCommand,
  ledger: async () => (await import('./ledger-command.js')).ledgerCommand,
  sandbox: async () => (await import('./sandbox-command.js')).sandboxCommand,
};
