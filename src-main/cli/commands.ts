import type { Command } from './command.js';
import { deliverCommand } from './deliver-command.js';
import { historyCommand } from './history-command.js';
import { ledgerCommand } from './ledger-command.js';
import { profileCommand } from './profile-command.js';
import { sandboxCommand } from './sandbox-command.js';
import { scanCommand } from './scan-command.js';
import { tagsCommand } from './tags-command.js';
import { uploadCommand } from './upload-command.js';

/** Every `courier` command, in the order `courier --help` lists them. */
export const commands: Command[] = [
  profileCommand,
  tagsCommand,
  scanCommand,
  uploadCommand,
  deliverCommand,
  historyCommand,
  ledgerCommand,
  sandboxCommand,
];
