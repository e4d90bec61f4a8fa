import type { LogLevel } from '../core/log.js';

/** The part of core's Logger the shell uses. */
export interface ShellLog {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): Promise<void>;
}

/** The part of `process` the handlers attach to. */
export interface CrashSource {
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

/** An error as a log field: message and stack (the Logger redacts secrets from both). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.message, name: error.name, stack: error.stack };
  return { error: String(error) };
}

/**
 * Logs what would otherwise vanish with the process. An uncaught exception is written (and the
 * write awaited) before `fatal` ends the app; an unhandled rejection is logged and the app goes
 * on, because exiting mid-delivery would cost more than the bug that lost a promise.
 */
export function installCrashHandlers(
  source: CrashSource,
  log: ShellLog,
  fatal: (error: Error) => void,
): void {
  let crashing = false;
  source.on('uncaughtException', (error) => {
    if (crashing) return;
    crashing = true;
    void log
      .log('error', 'Uncaught exception in the main process', errorFields(error))
      .finally(() => fatal(error));
  });
  source.on('unhandledRejection', (reason) => {
    void log.log('error', 'Unhandled promise rejection in the main process', errorFields(reason));
  });
}
