import type { Command } from './command.js';
import { sandboxCommand } from './sandbox-command.js';
import { scanCommand } from './scan-command.js';

/** Every `courier` command, in the order `courier --help` lists them. */
export const commands: Command[] = [scanCommand, sandboxCommand];
