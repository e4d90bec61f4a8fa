import { CourierError, unknownCatalogCode, UsageError } from '../core/errors.js';

/** What every `courier` command is (its name is its key in `commands`): one line of help, its usage and how to run it. */
export interface Command {
  summary: string;
  usage: string;
  /** Runs the command; resolves to the process exit code (0 ok, 1 failure, 2 usage). */
  run(args: string[], io: CliIO): Promise<number>;
}

/** Where a command writes: stdout carries only its output, stderr everything else. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Asks the user on the terminal (a secret without echo); reads a line when piped. */
  ask(question: string, options?: { secret?: boolean }): Promise<string>;
  /** Whether stdout is a terminal (progress bars) or a pipe (plain lines). */
  isTTY: boolean;
  /** Whether stderr is a terminal: progress may be drawn there while stdout is piped. */
  errIsTTY: boolean;
  /** Resolves when the user asks the command to stop (SIGINT/SIGTERM). */
  stopRequested: Promise<void>;
}

/**
 * The README's exit code of an error: 2 for what the user must change in the command (a bad
 * argument, an unknown profile, catalog or file, a name that can't be a key, a delivery another
 * process holds), 3 when validation blocks a delivery, 1 for every other failure.
 */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return 2;
  if (!(error instanceof CourierError)) return 1;
  const usage = ['not_found', 'invalid-key', 'locked', 'confirm_production', unknownCatalogCode];
  if (usage.includes(error.code)) return 2;
  if (error.code === 'blocked') return 3;
  return 1;
}
