import type { Command } from './command.js';
import { profileCommand } from './profile-command.js';
import { sandboxCommand } from './sandbox-command.js';
import { scanCommand } from './scan-command.js';
import { tagsCommand } from './tags-command.js';

/** Every `courier` command, in the order `courier --help` lists them. */
export const commands: Command[] = [profileCommand, tagsCommand, scanCommand, sandboxCommand];
