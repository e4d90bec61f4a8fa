/**
 * `courier`: the headless door onto the same core as the app, for scripted and scheduled
 * deliveries. Exit codes: 0 ok, 1 failure, 2 usage error; an error is one line on stderr.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { ask } from './cli/ask.js';
import { type CliIO, exitCodeOf } from './cli/command.js';
import { commands } from './cli/commands.js';
import { app } from './core/app-info.js';
import { redactor } from './core/log.js';
import { tuneCompilerForBatch } from './core/process-tuning.js';
import { escapeControls } from './core/storage/object-key.js';

/** The text of `courier --help`. */
export async function helpText(): Promise<string> {
  const names = Object.keys(commands);
  const width = Math.max(...names.map((name) => name.length), 9);
  const loaded = await Promise.all(names.map((name) => commands[name]!()));
  const lines = loaded.map((c, i) => `  ${names[i]!.padEnd(width)}  ${c.summary}`);
  return [
    `${app.productName} ${app.version}: deliver a catalog to the audio-analysis service.`,
    '',
    'Usage: courier <command> [options]',
    '       courier <command> --help',
    '',
    'Commands:',
    ...(lines.length > 0 ? lines : ['  (none yet)']),
    '',
    'Options:',
    `  ${'--help'.padEnd(width)}  show this help`,
    `  ${'--version'.padEnd(width)}  print the version`,
    '',
    'Data directory: $COURIER_HOME, or the OS application-data folder.',
    'Proxy: $HTTPS_PROXY, $HTTP_PROXY, $NO_PROXY (never for localhost); extra CAs: $NODE_EXTRA_CA_CERTS.',
  ].join('\n');
}

/** Runs one command line and resolves to the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    io.out(await helpText());
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-V') {
    io.out(app.version);
    return 0;
  }
  const load = Object.hasOwn(commands, first) ? commands[first] : undefined;
  if (!load) {
    io.err(`courier: unknown command '${first}' (see courier --help)`);
    return 2;
  }
  const command = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`Usage: ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (isArgumentError(error)) {
      io.err(`courier ${first}: ${oneLine(error)} (usage: ${command.usage})`);
      return 2;
    }
    io.err(`courier ${first}: ${oneLine(error)}`);
    return exitCodeOf(error);
  }
}

/** An error as one printable line: its first line, control characters escaped. */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return escapeControls(text.split(/\r?\n/)[0]!.trim());
}

/** node:util parseArgs reports bad flags with these codes. */
function isArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * Runs `courier` as this process: arguments from argv (or those given: the app binary passes
 * what follows its CLI marker), output to stdout/stderr, Ctrl-C and SIGTERM as a stop request,
 * and the exit code. `scripts/courier.mjs`, bin/courier.mjs and the app call it from the bundle.
 */
export function runAsProcess(argv: string[] = process.argv.slice(2)): void {
  tuneCompilerForBatch();
  const stopRequested = new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  const io: CliIO = {
    out: (text) => process.stdout.write(`${text}\n`),
    // The last guard: whatever a command writes to stderr, no token or secret goes out.
    err: (text) => process.stderr.write(`${redactor.redact(text)}\n`),
    env: process.env,
    ask,
    isTTY: Boolean(process.stdout.isTTY),
    errIsTTY: Boolean(process.stderr.isTTY),
    stopRequested,
  };
  runCli(argv, io).then(
    (code) => {
      process.exitCode = code;
      // Commands that keep servers or sockets open end when they return — once stdout has
      // drained, since pipes are asynchronous on some platforms and output must not be cut.
      process.stdout.write('', () => process.exit(code));
    },
    (error: unknown) => {
      process.stderr.write(`courier: ${String(error)}\n`);
      process.exit(1);
    },
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runAsProcess();
}
